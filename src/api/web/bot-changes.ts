/**
 * Open web event streams follow their bot: when the directory reports a bot changed, the streams
 * of a bot that no longer takes them (deleted, switched off, its web channel removed) end, and so
 * do those opened under a web channel made anew since (its visitors' tokens are void). Ended
 * streams free their slots at once; their clients reconnect and are refused as any new one is.
 */
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';
import { webChannelOf } from './channel.ts';

/** What `webChannelOf` answers for a bot that takes no web visitors now. */
const GONE = new Set(['BW_ERR_UNKNOWN_BOT', 'BW_ERR_BOT_INACTIVE', 'BW_ERR_UNKNOWN_CHANNEL']);

export function endStreamsOfChangedBots(edge: Edge): void {
  const { hub } = edge.web;
  edge.directory.onChange((appId) => {
    if (!hub.serves(appId)) return;
    webChannelOf(edge, appId).then(
      (web) => hub.endStreams(appId, web.tokenKey),
      (error: unknown) => {
        // A failed look-up (the database away) ends nothing: the next change or reload decides.
        if (error instanceof BotwireError && GONE.has(error.code)) hub.endStreams(appId);
      },
    );
  });
}
