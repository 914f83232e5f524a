/**
 * Open event streams follow their bot: when the directory reports a bot changed, the streams of a
 * bot that no longer takes them end: a web visitor's when the bot is deleted or switched off or
 * its web channel removed, or when that channel was made anew (its visitors' tokens are void); a
 * test chat's only when the bot is deleted (a switched-off bot is still tried in the console).
 * Ended streams free their slots at once; their clients reconnect and are refused as any new one is.
 */
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';
import { webChannelOf } from './channel.ts';

/** What `webChannelOf` answers for a bot that takes no web visitors now. */
const GONE = new Set(['BW_ERR_UNKNOWN_BOT', 'BW_ERR_BOT_INACTIVE', 'BW_ERR_UNKNOWN_CHANNEL']);

/** The keys of the channels whose streams bot `appId` still takes. */
async function liveKeys(edge: Edge, appId: string): Promise<Set<string>> {
  const keys = new Set<string>();
  const bot = await edge.directory.byAppId(appId);
  const console = bot?.channels.find((c) => c.type === 'console');
  if (console && !console.unreadable && console.secrets.type === 'console')
    keys.add(console.secrets.token_key);
  try {
    keys.add((await webChannelOf(edge, appId)).tokenKey);
  } catch (error) {
    if (!(error instanceof BotwireError && GONE.has(error.code))) throw error;
  }
  return keys;
}

export function endStreamsOfChangedBots(edge: Edge): void {
  const { hub } = edge.web;
  edge.directory.onChange((appId) => {
    if (!hub.serves(appId)) return;
    // A failed look-up (the database away) ends nothing: the next change or reload decides.
    liveKeys(edge, appId).then(
      (keys) => hub.endStreams(appId, keys),
      () => undefined,
    );
  });
}
