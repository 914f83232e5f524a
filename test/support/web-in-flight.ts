/**
 * What a killed `channel` process left half done for web visitors, read right after the kill
 * from Redis and Postgres: the entries of the channel topic it had read and not acknowledged (they
 * will be handled again), how many of those had already been shown on the visitor's event stream
 * (their once-marker exists), and how many of those were shown and not yet in the transcript: the
 * exact window in which the web channel's idempotent append is what keeps a reply from showing
 * twice.
 */
import { topicKeys } from '../../src/shared/bus/topics.ts';
import { parseEntries } from '../../src/shared/bus/entries.ts';
import { visitorStreamKey } from '../../src/shared/web/visitor-stream.ts';
import type { FaultSystem } from './fault-system.ts';

export interface WebInFlight {
  /** Channel-topic entries of web conversations read and not acknowledged. */
  inFlight: number;
  /** Of those, the ones whose message (the echo, or the reply's first call) was on the stream. */
  shown: number;
  /** Of those, the ones with no transcript row yet. */
  shownNotRecorded: number;
}

export async function webInFlight(system: FaultSystem): Promise<WebInFlight> {
  const keys = topicKeys(system.prefix, 'channel', Number(system.env.TOPIC_PARTITIONS));
  const counts: WebInFlight = { inFlight: 0, shown: 0, shownNotRecorded: 0 };
  for (const stream of keys.partitions) {
    const pending = (await system.redis.call('XPENDING', stream, 'channel', '-', '+', 1000)) as [
      string,
    ][];
    for (const [id] of pending) {
      const [entry] = parseEntries(await system.redis.xrange(stream, id, id));
      if (!entry?.data) continue;
      const message = JSON.parse(entry.data) as {
        intent: string;
        turn_id: string;
        bot_input?: { app_id: string; web?: { visitor_id: string; client_message_id: string } };
        bot_output?: { conversation: { app_id: string; chat_id: string; channel_type: string } };
      };
      let marker: string | undefined;
      let recorded: () => Promise<boolean> = async () => false;
      const web = message.bot_input?.web;
      const out = message.bot_output?.conversation;
      if (message.intent === 'channel_in' && web) {
        const key = visitorStreamKey(system.prefix, message.bot_input!.app_id, web.visitor_id);
        marker = `${key}:once:in:${web.client_message_id}`;
        recorded = async () =>
          (await system.schema
            .db('messages')
            .where({ direction: 'in', platform_message_id: web.client_message_id })
            .first('id')) !== undefined;
      } else if (message.intent === 'channel_out' && out?.channel_type === 'web') {
        const key = visitorStreamKey(system.prefix, out.app_id, out.chat_id);
        marker = `${key}:once:out:${message.turn_id}:0.0`;
        recorded = async () =>
          (await system.schema
            .db('messages')
            .where({ direction: 'out', turn_id: message.turn_id })
            .whereNot({ status: 'sending' })
            .first('id')) !== undefined;
      }
      if (!marker) continue;
      counts.inFlight += 1;
      if ((await system.redis.exists(marker)) === 0) continue;
      counts.shown += 1;
      if (!(await recorded())) counts.shownNotRecorded += 1;
    }
  }
  return counts;
}

/** Channel-topic entries read by `consumer` and not acknowledged (a dead one's: not yet taken over). */
export async function channelPendingOf(system: FaultSystem, consumer: string): Promise<number> {
  const keys = topicKeys(system.prefix, 'channel', Number(system.env.TOPIC_PARTITIONS));
  let count = 0;
  for (const stream of keys.partitions) {
    const pending = (await system.redis.call('XPENDING', stream, 'channel', '-', '+', 1000)) as [
      string,
      string,
    ][];
    count += pending.filter(([, owner]) => owner === consumer).length;
  }
  return count;
}
