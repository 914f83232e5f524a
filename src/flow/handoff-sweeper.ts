/**
 * The handoff timeout (docs/handoff.md): waiting handoffs past `deadline_at` get a flow message
 * `intent: "handoff"`, action `timeout`, ordered with the conversation's input. Rows are taken
 * with `FOR UPDATE SKIP LOCKED`, so with several flow processes each row is published by one; its
 * deadline then moves on by `REPUBLISH_AFTER_S`, so it is published again only if it is still
 * waiting then (the message was lost with Redis). Every copy carries the same turn id, and flow
 * ends a handoff only while it is still waiting, so a second copy changes nothing.
 */
import type { Producer } from '../shared/bus/producer.ts';
import type { Knex } from '../shared/db.ts';
import {
  chatOrderingKey,
  conversationRefOfRow,
  type ConversationRefRow,
} from '../shared/conversation-ref.ts';

/** How long after a published timeout a still-waiting handoff is published again (seconds). */
export const REPUBLISH_AFTER_S = 300;
/** Most handoffs one sweep publishes. */
const BATCH = 100;

interface DueRow extends ConversationRefRow {
  id: string;
}

/** The turn id of a handoff's timeout message: the same for every copy. */
export function timeoutTurnId(handoffId: string): string {
  return `handoff:${handoffId}:timeout`;
}

/**
 * Publishes the timeout of every waiting handoff past its deadline (at most 100 per call).
 * @returns how many were published.
 */
export async function sweepHandoffs(
  db: Knex,
  producer: Pick<Producer, 'publishMany'>,
): Promise<number> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: DueRow[] }>(
      `select h.id, h.app_id, h.conversation_id, c.channel_id, ch.type as channel_type, c.chat_id,
              c.user_pid, c.language as user_language, b.language as bot_language
       from handoffs h
       join conversations c on c.id = h.conversation_id
       join channels ch on ch.id = c.channel_id
       join bots b on b.app_id = h.app_id
       where h.status = 'waiting' and h.deadline_at is not null and h.deadline_at <= now()
       order by h.deadline_at
       limit ${BATCH}
       for update of h skip locked`,
    );
    if (rows.length === 0) return 0;
    await producer.publishMany(
      rows.map((row) => ({
        topic: 'flow' as const,
        message: {
          source: 'flow',
          turn_id: timeoutTurnId(row.id),
          // The key the edge gives the conversation's input, so it is ordered with it.
          ordering_key: chatOrderingKey(row.app_id, row.chat_id),
          intent: 'handoff',
          conversation: conversationRefOfRow(row),
          handoff: { id: row.id, action: 'timeout' },
        },
      })),
    );
    await trx.raw(
      `update handoffs set deadline_at = now() + make_interval(secs => ?) where id = any(?::uuid[])`,
      [REPUBLISH_AFTER_S, rows.map((r) => r.id)],
    );
    return rows.length;
  });
}
