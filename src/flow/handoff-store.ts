/**
 * The flow's side of the `handoffs` table (docs/handoff.md). A handoff opens and ends in the same
 * transaction as the conversation state that says so, so the row and `state.handoff` never
 * disagree; the open row's id comes from the turn that opened it, so a retried turn opens the
 * same one (and the insert does nothing the second time).
 */
import { createHash } from 'node:crypto';
import type { Knex } from '../shared/db.ts';
import { HANDOFF_ENDS } from '../shared/analytics-timings.ts';
import type { HandoffAction, HandoffStart } from './engine/types.ts';
import { saveState, type StoredState } from './state-store.ts';

/** Statuses of an open handoff. */
export const OPEN_STATUSES = ['waiting', 'claimed'] as const;

/** What ends a handoff, by its action: the row's final status. */
export const END_STATUS: Record<HandoffAction, 'returned' | 'closed' | 'fallback'> = {
  return: 'returned',
  close: 'closed',
  timeout: 'fallback',
};

/** The id of the handoff a turn opens: a UUID (version 8, RFC 9562) hashed from the turn. */
export function handoffIdOf(conversationId: string, turnId: string): string {
  const hex = createHash('sha256').update(`handoff\0${conversationId}\0${turnId}`).digest('hex');
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface HandoffRow {
  id: string;
  app_id: string;
  conversation_id: string;
  status: string;
  queue: string | null;
  fallback_state: string | null;
}

/** One handoff row, or undefined. */
export async function readHandoff(db: Knex, id: string): Promise<HandoffRow | undefined> {
  const { rows } = await db.raw<{ rows: HandoffRow[] }>(
    `select id, app_id, conversation_id, status, queue, fallback_state from handoffs where id = ?`,
    [id],
  );
  return rows[0];
}

/** A handoff to open with the state that says so. */
export interface HandoffOpen extends HandoffStart {
  appId: string;
  conversationId: string;
  /** How long it waits for an agent before its fallback runs (seconds). */
  timeoutS: number;
}

/** A handoff to end with the state that says so. */
export interface HandoffEnd {
  id: string;
  action: HandoffAction;
  /** Who ended it: the `source` of the message (an api actor, or flow for a timeout). */
  endedBy: string;
  /** The state a return resumed at. */
  returnState?: string;
}

/** What a turn's save does to `handoffs` besides the state. */
export interface HandoffWrite {
  open?: HandoffOpen;
  end?: HandoffEnd;
}

/**
 * Ends `end` (if still open; for a timeout, if still waiting), opens `open` and saves the state,
 * in one transaction. The open row's insert does nothing when the row exists (a retried turn).
 * @returns the stored state, or undefined when the handoff to end was no longer open (claimed
 *   before its timeout, ended by another message): then nothing was written.
 */
export async function saveWithHandoff(
  db: Knex,
  input: Parameters<typeof saveState>[1],
  write: HandoffWrite,
): Promise<StoredState | undefined> {
  return db.transaction(async (trx) => {
    const { end, open } = write;
    if (end) {
      const statuses = end.action === 'timeout' ? ['waiting'] : [...OPEN_STATUSES];
      // How it ended counts in the bot's analytics with the row's end, so once.
      const ended = await trx.raw<{ rows: { n: number }[] }>(
        `with ended as (
           update handoffs set status = ?, ended_at = now(), ended_by = ?, return_state = ?
           where id = ? and conversation_id = ? and status = any(?::text[])
           returning app_id, conversation_id, ended_at
         ),
         counted as (
           insert into analytics_events as t (app_id, day, channel_type, event, code, count)
           select e.app_id, (e.ended_at at time zone 'utc')::date, ch.type, ?, '', 1
           from ended e
           join conversations c on c.id = e.conversation_id
           join channels ch on ch.id = c.channel_id
           where ch.type <> 'console'
           on conflict (app_id, day, channel_type, event, code) do update set count = t.count + 1
         )
         select count(*)::int as n from ended`,
        [
          END_STATUS[end.action],
          end.endedBy,
          end.returnState ?? null,
          end.id,
          input.conversationId,
          statuses,
          HANDOFF_ENDS[end.action],
        ],
      );
      if (ended.rows[0]?.n === 0) return undefined;
    }
    if (open) {
      // A row left open with no state naming it cannot be ended by anyone; closed, not kept.
      await trx.raw(
        `update handoffs set status = 'closed', ended_at = now(), ended_by = 'flow'
         where conversation_id = ? and id <> ? and status in ('waiting', 'claimed')`,
        [open.conversationId, open.id],
      );
      await trx.raw(
        `insert into handoffs (id, app_id, conversation_id, status, queue, reason, deadline_at, fallback_state)
         values (?, ?, ?, 'waiting', ?, ?, now() + make_interval(secs => ?), ?)
         on conflict (id) do nothing`,
        [
          open.id,
          open.appId,
          open.conversationId,
          open.queue ?? null,
          open.reason,
          open.timeoutS,
          open.fallback,
        ],
      );
    }
    return saveState(trx, input);
  });
}
