/** The test chat as a page of its own (route `bots/:appId/chat`). */
import { Link, useParams } from 'react-router';
import { useBot } from '../../api/bots.ts';
import { TestChat } from './test-chat.tsx';

export function TestChatPage() {
  const { appId = '' } = useParams();
  const bot = useBot(appId);
  return (
    <div className="test-chat-page">
      <h1>Test chat</h1>
      <p>
        {bot.data ? <Link to={`/bots/${appId}`}>{bot.data.name}</Link> : <code>{appId}</code>} ·{' '}
        <Link to={`/bots/${appId}/flow`}>Flow editor</Link> ·{' '}
        <Link to={`/bots/${appId}/conversations`}>Conversations</Link>
      </p>
      <TestChat appId={appId} />
    </div>
  );
}
