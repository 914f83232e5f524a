import type { BotRecord } from '../../shared/bots/types.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';
import { UUID } from '../ids.ts';

/** The bot of a callback path, which must exist and be active. */
export async function activeBot(edge: Edge, appId: string): Promise<BotRecord> {
  // App ids are UUIDs: anything else cannot exist and is not looked up at all.
  const bot = UUID.test(appId) ? await edge.directory.byAppId(appId) : undefined;
  if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
  if (!bot.active) throw new BotwireError('BW_ERR_BOT_INACTIVE', 'this bot is switched off');
  return bot;
}
