/**
 * Handoffs in Postgres, as the agent's side of the admin API reads and changes them
 * (docs/handoff.md). A claim is one conditional UPDATE (`where status = 'waiting'`): of two agents
 * claiming at once, Postgres lets exactly one row change, and the other finds it claimed.
 * Ending a handoff is the flow's work (it clears the conversation's state in the same
 * transaction); the api only asks for it through the flow topic.
 */
import type { Knex } from '../../shared/db.ts';
import { bucketSql } from '../../shared/analytics-timings.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { HandoffStatus } from '../../shared/events/types.ts';
import { pageOf, type Page } from './paging.ts';
import { UUID } from '../ids.ts';

/** A handoff row as the API shows it. */
export interface HandoffRow {
  id: string;
  app_id: string;
  conversation_id: string;
  status: HandoffStatus;
  queue: string | null;
  reason: string;
  created_at: Date;
  deadline_at: Date | null;
  claimed_by: string | null;
  /** The account of the holder; null when the admin key holds it. */
  claimed_account: string | null;
  claimed_at: Date | null;
  first_reply_at: Date | null;
  ended_at: Date | null;
  ended_by: string | null;
  return_state: string | null;
  fallback_state: string | null;
  /** Seconds since it began waiting (up to its claim or end). */
  waiting_s: number;
}

const COLUMNS = [
  'h.id',
  'h.app_id',
  'h.conversation_id',
  'h.status',
  'h.queue',
  'h.reason',
  'h.created_at',
  'h.deadline_at',
  'h.claimed_by',
  'h.claimed_account',
  'h.claimed_at',
  'h.first_reply_at',
  'h.ended_at',
  'h.ended_by',
  'h.return_state',
  'h.fallback_state',
];

/** Whole seconds waited: to the claim, the end, or now. */
const WAITING_S = `floor(extract(epoch from coalesce(h.claimed_at, h.ended_at, now()) - h.created_at))::int as waiting_s`;

/** The filters of `GET /v2/handoffs` (schemas/http/handoffs-query.json). */
export interface HandoffFilters {
  app_id?: string;
  /** Default: the open ones (waiting and claimed). */
  status?: HandoffStatus | 'open';
  queue?: string;
}

/**
 * Handoffs in pages, oldest first (the one waiting longest on top), keyset by (created_at, id).
 * @param bots the bots the caller may see ('all', or an agent's assigned bots).
 */
export async function listHandoffs(
  db: Knex,
  bots: 'all' | string[],
  filters: HandoffFilters,
  limit: number,
  after?: string,
): Promise<Page<Record<string, unknown>>> {
  const query = db('handoffs as h')
    .join('conversations as c', 'c.id', 'h.conversation_id')
    .join('channels as ch', 'ch.id', 'c.channel_id')
    .leftJoin('users as u', 'u.pid', 'c.user_pid')
    .select(
      ...COLUMNS,
      db.raw(WAITING_S),
      'ch.type as channel_type',
      'c.chat_id',
      'u.first_name',
      'u.last_name',
    )
    .orderBy([
      { column: 'h.created_at', order: 'asc' },
      { column: 'h.id', order: 'asc' },
    ])
    .limit(limit + 1);
  if (bots !== 'all') void query.whereIn('h.app_id', bots);
  if (filters.app_id !== undefined) void query.where('h.app_id', filters.app_id);
  const status = filters.status ?? 'open';
  if (status === 'open') void query.whereIn('h.status', ['waiting', 'claimed']);
  else void query.where('h.status', status);
  if (filters.queue !== undefined) void query.where('h.queue', filters.queue);
  if (after) {
    // Compared in SQL: timestamps keep microseconds there, and lose them in a JS Date.
    void query.whereRaw(
      '(h.created_at, h.id) > (select created_at, id from handoffs where id = ?)',
      [after],
    );
  }
  const rowsRaw: unknown = await query;
  const rows = rowsRaw as Record<string, unknown>[];
  return pageOf(rows, limit, (row) => String(row.id));
}

/** One handoff, or undefined (also for an id that is not a UUID). */
export async function getHandoff(db: Knex, id: string): Promise<HandoffRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const row: unknown = await db('handoffs as h')
    .where('h.id', id)
    .first(...COLUMNS, db.raw(WAITING_S));
  return row as HandoffRow | undefined;
}

/** Who acts on a handoff: the principal's actor and account. */
export interface Caller {
  actor: string;
  accountId: string | null;
}

/**
 * Whether `caller` holds the claimed `row`. A person is their account, whichever session or token
 * they use (each has its own actor); the admin key, which has no account, is its actor.
 */
export function holds(row: HandoffRow, caller: Caller): boolean {
  if (row.status !== 'claimed') return false;
  return caller.accountId !== null
    ? row.claimed_account === caller.accountId
    : row.claimed_account === null && row.claimed_by === caller.actor;
}

/**
 * Refuses what only the handoff's holder may do: 409 `BW_ERR_HANDOFF_ENDED` once it ended,
 * `BW_ERR_HANDOFF_NOT_YOURS` when someone else holds it, or (unless `waitingOk`) nobody does.
 */
export function requireHolder(row: HandoffRow, caller: Caller, waitingOk = false): void {
  if (row.status !== 'waiting' && row.status !== 'claimed') {
    throw new BotwireError('BW_ERR_HANDOFF_ENDED', `this handoff has ended (${row.status})`);
  }
  if (holds(row, caller)) return;
  if (row.status === 'waiting' && waitingOk) return;
  throw new BotwireError(
    'BW_ERR_HANDOFF_NOT_YOURS',
    row.status === 'waiting'
      ? 'claim this handoff first'
      : 'another agent holds this handoff; only they can do this',
    { details: { claimed_by: row.claimed_by } },
  );
}

/**
 * Claims a waiting handoff for `actor`. Claiming one you hold already answers it again (a retried
 * request); one claimed by another is 409 `BW_ERR_HANDOFF_CLAIMED`.
 * @returns the row and whether this call claimed it.
 */
export async function claimHandoff(
  db: Knex,
  row: HandoffRow,
  caller: Caller,
): Promise<{ row: HandoffRow; changed: boolean }> {
  const { actor, accountId } = caller;
  const updatedRaw: unknown = await db('handoffs as h')
    .where({ 'h.id': row.id, 'h.status': 'waiting' })
    .update({
      status: 'claimed',
      claimed_by: actor,
      claimed_account: accountId,
      claimed_at: db.fn.now(),
    })
    .returning([...COLUMNS, db.raw(WAITING_S)]);
  const updated = updatedRaw as HandoffRow[];
  if (updated[0]) return { row: updated[0], changed: true };
  const now = await getHandoff(db, row.id);
  if (!now) throw new BotwireError('BW_ERR_NOT_FOUND', 'no handoff has this id');
  if (holds(now, caller)) return { row: now, changed: false };
  if (now.status === 'claimed') {
    throw new BotwireError('BW_ERR_HANDOFF_CLAIMED', 'another agent claimed this handoff first', {
      details: { claimed_by: now.claimed_by },
    });
  }
  throw new BotwireError('BW_ERR_HANDOFF_ENDED', `this handoff has ended (${now.status})`);
}

/** Gives a claimed handoff back to its queue; only its holder may. */
export async function releaseHandoff(
  db: Knex,
  row: HandoffRow,
  caller: Caller,
): Promise<HandoffRow> {
  requireHolder(row, caller);
  const updatedRaw: unknown = await db('handoffs as h')
    .where({ 'h.id': row.id, 'h.status': 'claimed' })
    .where((q) =>
      caller.accountId !== null
        ? void q.where('h.claimed_account', caller.accountId)
        : void q.whereNull('h.claimed_account').where('h.claimed_by', caller.actor),
    )
    .update({ status: 'waiting', claimed_by: null, claimed_account: null, claimed_at: null })
    .returning([...COLUMNS, db.raw(WAITING_S)]);
  const updated = updatedRaw as HandoffRow[];
  if (updated[0]) return updated[0];
  const now = await getHandoff(db, row.id);
  if (!now) throw new BotwireError('BW_ERR_NOT_FOUND', 'no handoff has this id');
  requireHolder(now, caller);
  // The holder, claimed, yet the update missed: it changed between the two reads. Say so.
  throw new BotwireError(
    'BW_ERR_HANDOFF_NOT_YOURS',
    'the handoff changed meanwhile; read it again',
  );
}

/**
 * Marks the handoff's first agent reply, once.
 * @returns seconds from the start of the handoff to it, or undefined when a reply came before.
 */
export async function markFirstReply(db: Knex, id: string): Promise<number | undefined> {
  // Counted in the bot's analytics with the mark, so once (the console's test chats are not).
  const result = await db.raw<{ rows: { seconds: number }[] }>(
    `with marked as (
       update handoffs set first_reply_at = now() where id = ? and first_reply_at is null
       returning app_id, conversation_id, first_reply_at,
         extract(epoch from first_reply_at - created_at)::float8 as seconds
     ),
     counted as (
       insert into analytics_timings as t (app_id, day, channel_type, measure, bucket, count)
       select m.app_id, (m.first_reply_at at time zone 'utc')::date, ch.type, 'agent_first_reply',
         ${bucketSql('m.seconds * 1000')}, 1
       from marked m
       join conversations c on c.id = m.conversation_id
       join channels ch on ch.id = c.channel_id
       where ch.type <> 'console'
       on conflict (app_id, day, channel_type, measure, bucket) do update set count = t.count + 1
     )
     select seconds from marked`,
    [id],
  );
  return result.rows[0]?.seconds;
}
