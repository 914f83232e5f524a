/**
 * A broadcast as the api reads and moves it (docs/outbound.md): its row, its recipients' counts
 * (by state and reason, and on WhatsApp how many were delivered and read, from the delivery
 * statuses channel records on their transcript rows), and the moves an operator makes: pause,
 * resume, cancel.
 */
import type { Knex } from '../../shared/db.ts';
import { BotwireError } from '../../shared/errors.ts';
import { deleteInBatches } from '../retention-pruner.ts';

export interface BroadcastRecord {
  id: string;
  app_id: string;
  channel_id: string;
  name: string;
  status: 'scheduled' | 'running' | 'paused' | 'cancelled' | 'finished';
  audience: Record<string, unknown>;
  message: Record<string, unknown>;
  /** The flow state recipients' answers go to; null: where each conversation is. */
  flow_state: string | null;
  total: number;
  created_by: string;
  created_at: Date;
  start_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  /** Waiting for its WhatsApp number's messaging limit until then. */
  waiting_until: Date | null;
}

/** The row's columns a `BroadcastRecord` reads: each of its fields, no other (checked by the compiler). */
const FIELDS: Record<keyof BroadcastRecord, true> = {
  id: true,
  app_id: true,
  channel_id: true,
  name: true,
  status: true,
  audience: true,
  message: true,
  flow_state: true,
  total: true,
  created_by: true,
  created_at: true,
  start_at: true,
  started_at: true,
  ended_at: true,
  waiting_until: true,
};
const COLUMNS = Object.keys(FIELDS);

export async function getBroadcast(db: Knex, id: string): Promise<BroadcastRecord> {
  const raw: unknown = await db('broadcasts')
    .where('id', id)
    .first(...COLUMNS);
  const row = raw as BroadcastRecord | undefined;
  if (!row) throw new BotwireError('BW_ERR_NOT_FOUND', 'no broadcast has this id');
  return row;
}

/** The bot's broadcasts, newest first. */
export async function listBroadcasts(
  db: Knex,
  appId: string,
  limit: number,
): Promise<BroadcastRecord[]> {
  const raw: unknown = await db('broadcasts')
    .where('app_id', appId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .select(...COLUMNS);
  return raw as BroadcastRecord[];
}

/**
 * The join of a recipient `r` to its message's transcript row `m` (an index probe on the
 * platform's message id), whose status WhatsApp's delivery statuses move on.
 */
function sentMessageOf(this: Knex.JoinClause): void {
  this.on('m.conversation_id', 'r.conversation_id')
    .andOnVal('m.direction', '=', 'out')
    .andOn('m.platform_message_id', 'r.platform_message_id');
}

export interface BroadcastCounts {
  total: number;
  queued: number;
  sending: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  unknown: number;
  skipped: number;
  /** Skipped recipients by reason, failed ones by the platform's reason. */
  skipped_by_reason: Record<string, number>;
  failed_by_reason: Record<string, number>;
}

/** The recipients' counts of broadcast `id`. */
export async function countsOf(db: Knex, id: string): Promise<BroadcastCounts> {
  return (await countsOfMany(db, [id])).get(id)!;
}

/**
 * The recipients' counts of each of `ids`, by two statements whatever their number (a bot's list,
 * read again every 2 s while one runs): one index scan of their rows, one of their sent ones.
 */
export async function countsOfMany(
  db: Knex,
  ids: readonly string[],
): Promise<Map<string, BroadcastCounts>> {
  const byStateRaw: unknown = await db('broadcast_recipients')
    .whereIn('broadcast_id', ids)
    .groupBy('broadcast_id', 'state', 'reason')
    .select('broadcast_id', 'state', 'reason', db.raw('count(*)::int as n'));
  const byState = byStateRaw as {
    broadcast_id: string;
    state: string;
    reason: string | null;
    n: number;
  }[];
  // Delivery statuses only move forward: a read message was delivered.
  const statusesRaw: unknown = await db('broadcast_recipients as r')
    .join('messages as m', sentMessageOf)
    .whereIn('r.broadcast_id', ids)
    .where('r.state', 'sent')
    .whereIn('m.status', ['delivered', 'read'])
    .groupBy('r.broadcast_id', 'm.status')
    .select('r.broadcast_id', 'm.status', db.raw('count(*)::int as n'));
  const statuses = statusesRaw as { broadcast_id: string; status: string; n: number }[];
  const all = new Map<string, BroadcastCounts>(
    ids.map((id) => [
      id,
      {
        total: 0,
        queued: 0,
        sending: 0,
        sent: 0,
        delivered: 0,
        read: 0,
        failed: 0,
        unknown: 0,
        skipped: 0,
        skipped_by_reason: {},
        failed_by_reason: {},
      },
    ]),
  );
  for (const { broadcast_id: id, state, reason, n } of byState) {
    const counts = all.get(id)!;
    counts.total += n;
    if (state === 'queued' || state === 'picked') counts.queued += n;
    else if (state === 'sending') counts.sending += n;
    else if (state === 'sent') counts.sent += n;
    else if (state === 'unknown') counts.unknown += n;
    else if (state === 'failed') {
      counts.failed += n;
      counts.failed_by_reason[reason ?? ''] = (counts.failed_by_reason[reason ?? ''] ?? 0) + n;
    } else if (state === 'skipped') {
      counts.skipped += n;
      counts.skipped_by_reason[reason ?? ''] = (counts.skipped_by_reason[reason ?? ''] ?? 0) + n;
    }
  }
  for (const { broadcast_id: id, status, n } of statuses) {
    const counts = all.get(id)!;
    if (status === 'read') counts.read += n;
    counts.delivered += n;
  }
  return all;
}

/** The moves an operator makes, from the statuses each may start from, to the status it sets. */
export const MOVES = {
  pause: { from: ['scheduled', 'running'], to: 'paused', done: 'paused' },
  // Scheduled again: the run that takes it on makes it running (from its start time). A
  // scheduled one is started again (one whose start could not be queued).
  resume: { from: ['paused', 'scheduled'], to: 'scheduled', done: 'resumed' },
  cancel: { from: ['scheduled', 'running', 'paused'], to: 'cancelled', done: 'cancelled' },
} as const;

export type Move = keyof typeof MOVES;

/**
 * Moves the broadcast; resolves to its row after. A cancel also skips every recipient not yet
 * sent (reason `cancelled`): a run waiting for its pace withdraws their calls.
 * @throws BW_ERR_BROADCAST_STATE when the broadcast's status does not allow the move
 */
export async function moveBroadcast(
  db: Knex,
  id: string,
  move: Move,
  /** A resume's start: only its job runs the broadcast from now on. */
  start?: string,
): Promise<BroadcastRecord> {
  return db.transaction(async (tx) => {
    const { from, to, done } = MOVES[move];
    const raw: unknown = await tx('broadcasts')
      .where('id', id)
      .whereIn('status', [...from])
      .update({
        status: to,
        ...(to === 'cancelled' ? { ended_at: tx.fn.now() } : {}),
        // A run still going picks no more: the next start takes it on.
        run_id: null,
        waiting_until: null,
        ...(start !== undefined ? { start_name: start } : {}),
      })
      .returning(COLUMNS);
    const [row] = raw as BroadcastRecord[];
    if (!row) {
      const current = await getBroadcast(tx, id);
      throw new BotwireError(
        'BW_ERR_BROADCAST_STATE',
        `a ${current.status} broadcast cannot be ${done}`,
        { details: { status: current.status } },
      );
    }
    if (to === 'cancelled') {
      await tx('broadcast_recipients')
        .where('broadcast_id', id)
        .whereIn('state', ['queued', 'picked'])
        .update({ state: 'skipped', reason: 'cancelled', updated_at: tx.fn.now() });
    }
    return row;
  });
}

/** The columns of a broadcast's recipients export, in order. */
export const RECIPIENT_COLUMNS = [
  'seq',
  'chat_id',
  'conversation_id',
  'state',
  'reason',
  'platform_message_id',
  'delivery',
  'updated_at',
] as const;

/** Rows a page of the recipients export reads. */
const EXPORT_PAGE = 5000;

/**
 * Every recipient's outcome, in order, read a page at a time (by `seq`): `delivery` is the
 * WhatsApp delivery status of a sent one (delivered or read), from its transcript row.
 */
export async function* recipientRows(
  db: Knex,
  id: string,
): AsyncGenerator<Record<(typeof RECIPIENT_COLUMNS)[number], unknown>> {
  for (let after = 0; ;) {
    const raw: unknown = await db('broadcast_recipients as r')
      .leftJoin('messages as m', sentMessageOf)
      .where('r.broadcast_id', id)
      .andWhere('r.seq', '>', after)
      .orderBy('r.seq')
      .limit(EXPORT_PAGE)
      .select(
        'r.seq',
        'r.chat_id',
        'r.conversation_id',
        'r.state',
        'r.reason',
        'r.platform_message_id',
        db.raw("case when m.status in ('delivered', 'read') then m.status end as delivery"),
        'r.updated_at',
      );
    const rows = raw as (Record<(typeof RECIPIENT_COLUMNS)[number], unknown> & {
      seq: number;
    })[];
    yield* rows;
    if (rows.length < EXPORT_PAGE) return;
    after = rows[rows.length - 1]!.seq;
  }
}

/**
 * Deletes the broadcasts that ended (finished or cancelled) more than `retentionDays` ago, their
 * recipients first, in batches, so no statement holds thousands of rows; answers how many rows
 * went. The messages they sent stay in their conversations' transcripts.
 */
export async function pruneBroadcasts(
  db: Knex,
  retentionDays: number,
  batch = 5000,
): Promise<number> {
  const ended = `select id from broadcasts where status in ('finished', 'cancelled')
    and ended_at < now() - make_interval(days => ?::integer)`;
  const recipients = await deleteInBatches(
    db,
    `delete from broadcast_recipients where ctid in (
       select ctid from broadcast_recipients where broadcast_id in (${ended})
       limit ? for update skip locked)`,
    [retentionDays],
    batch,
  );
  const broadcasts = await deleteInBatches(
    db,
    `delete from broadcasts where id in (${ended} limit ? for update skip locked)`,
    [retentionDays],
    batch,
  );
  return recipients + broadcasts;
}
