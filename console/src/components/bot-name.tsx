/** A bot named on a page: its name linking to its page once loaded, its app id until then. */
import { Link } from 'react-router';
import { useBot } from '../api/bots.ts';

export function BotName({ appId }: { appId: string }) {
  const bot = useBot(appId);
  return bot.data ? <Link to={`/bots/${appId}`}>{bot.data.name}</Link> : <code>{appId}</code>;
}
