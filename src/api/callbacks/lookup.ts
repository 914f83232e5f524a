import type { BotRecord } from '../../shared/bots/types.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';

/** The bot of a callback path, which must exist and be active. */
export async function activeBot(edge: Edge, appId: string): Promise<BotRecord> {
  const bot = await edge.directory.byAppId(appId);
  if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
  if (!bot.active) throw new BotwireError('BW_ERR_BOT_INACTIVE', 'this bot is switched off');
  return bot;
}
