/**
 * What every admin route that changes a bot does last: tell the bot directories of all processes
 * (`notifyChanged`) and publish the live `bot` event. Flow versions call it with
 * `'flow-published'` when a version becomes current (publish or rollback).
 */
import type { BotChange } from '../../shared/events/types.ts';
import type { Edge } from '../edge.ts';

/**
 * Announces a change of bot `appId`. The event is best effort and never fails the request; the
 * directory notice is awaited, as before.
 */
export async function botChanged(edge: Edge, appId: string, change: BotChange): Promise<void> {
  await edge.directory.notifyChanged(appId);
  edge.events.publish('bot', { app_id: appId, change });
}
