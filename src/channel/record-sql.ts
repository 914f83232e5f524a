/**
 * The SQL of channel's transcript records, in three parts that compose into one statement: the
 * inbound record (`in`), the look-up of a turn's recorded calls (`read`) and the record of calls
 * that ended (`out`). `recordStatement` joins the parts a batch needs (`store.ts`), so the writes
 * and look-ups that meet in one group commit cost Postgres one round trip and one commit, not one
 * per kind.
 *
 * Each part takes its batch as one JSON array parameter, so the text of each combination never
 * varies and is prepared once per connection (`shared/db.ts`). Each part's `with` items are named
 * with its kind, and every part answers the same columns (`RecordRow`), so the parts' answers are
 * one `union all`. Parts of one statement share its snapshot: no part reads what another writes,
 * and none writes a row another writes (`store.ts` keeps the calls of a batch holding a failed
 * one apart from its inbound messages: both may write the conversation's row).
 */
import { prepared, type PreparedStatement } from '../shared/db.ts';
import { bucketSql } from '../shared/analytics-timings.ts';

export type RecordKind = 'in' | 'read' | 'out';

/** The kinds in the order their parameters take in a statement. */
export const RECORD_KINDS: readonly RecordKind[] = ['in', 'read', 'out'];

/** A row of a record statement's answer; each kind fills its own columns, the others are null. */
export interface RecordRow {
  kind: RecordKind;
  /** `in`, `read`: the item's index in its part's parameter. */
  i: number | null;
  conversation_id: string | null;
  /** `in`: the conversation's language. */
  language: string | null;
  /** `in`: whether this statement inserted the message. */
  inserted: boolean | null;
  /** `in`, `out`: the transcript row written. */
  message_id: string | null;
  created_at: Date | null;
  /** `in`: the turn an earlier delivery of the same platform message was recorded under. */
  existing_turn: string | null;
  /** `out`: the call's turn. */
  turn_id: string | null;
  /** `read`, `out`: the call's seq. */
  seq: string | null;
}

interface Part {
  with: string[];
  select: string;
}

// The inbound record: the users and the conversations are upserted and the messages logged in
// data-modifying CTEs, atomically.
//
// Rows are written only when something changed: a user when their name did, a conversation's
// `last_message_at` when it is over a minute old (it orders the transcript list, to the minute).
// An update writes a new row version, and `last_message_at` is indexed, so rewriting it on every
// message would add an entry to each of the conversation's four indexes. A conversation left as
// it was is read from the statement's snapshot (`known`). `existing_turn` is read from that
// snapshot too, i.e. the row as it was before this statement, and only for a message this
// statement did not insert (a redelivery): a fresh message, nearly every one, costs no look-up
// (null, as the snapshot would answer).
//
// A batch holds each conversation once: `existing_turn` could not see a sibling row of the same
// statement, so `store.ts` refuses a batch that repeats one, and the Batcher records its messages
// one by one (a process handles a conversation's messages one after another, so this does not
// happen while order holds). A batch may hold one user twice (one person writing to two bots):
// the user is upserted once, with the names of the newest message that has any. Look-ups are
// LATERAL subqueries kept apart (`offset 0`), so each is an index probe whatever the tables'
// statistics were when the plan was prepared.
const inbound = (param: string): Part => ({
  with: [
    `in_r as (
  select * from jsonb_to_recordset(${param}::jsonb) as r (i int, pid text, first_name text,
    last_name text, channel_type text, external_id text, app_id text, channel_id uuid,
    chat_id text, turn_id text, platform_message_id text, message_type text, body jsonb)
)`,
    `in_u as (
  insert into users (pid, first_name, last_name, channel_type, external_id)
  select distinct on (pid) pid, first_name, last_name, channel_type, external_id
  from in_r order by pid, (first_name is null and last_name is null), i desc
  on conflict (pid) do update set
    first_name = coalesce(excluded.first_name, users.first_name),
    last_name = coalesce(excluded.last_name, users.last_name),
    updated_at = now()
  where (users.first_name, users.last_name) is distinct from
    (coalesce(excluded.first_name, users.first_name), coalesce(excluded.last_name, users.last_name))
)`,
    `in_written as (
  insert into conversations (app_id, channel_id, user_pid, chat_id)
  select app_id, channel_id, pid, chat_id from in_r
  on conflict (channel_id, chat_id) do update set last_message_at = now()
  where conversations.last_message_at < now() - interval '1 minute'
  returning id, channel_id, chat_id, language
)`,
    `in_c as (
  select r.*, coalesce(w.id, known.id) as conversation_id,
    case when w.id is null then known.language else w.language end as language
  from in_r r
  left join in_written w on w.channel_id = r.channel_id and w.chat_id = r.chat_id
  left join lateral (
    select k.id, k.language from conversations k
    where w.id is null and k.channel_id = r.channel_id and k.chat_id = r.chat_id
    offset 0
  ) known on true
)`,
    `in_m as (
  insert into messages (conversation_id, direction, turn_id, platform_message_id, message_type, body, status)
  select conversation_id, 'in', turn_id, platform_message_id, message_type, body, 'received'
  from in_c where conversation_id is not null
  on conflict (conversation_id, direction, platform_message_id) where platform_message_id is not null
  do nothing
  returning id, conversation_id, platform_message_id, created_at
)`,
  ],
  select: `select 'in'::text as kind, c.i, c.conversation_id::text as conversation_id, c.language,
  m.id is not null as inserted, m.id::text as message_id, m.created_at,
  case when m.id is null then (select e.turn_id from messages e
    where e.conversation_id = c.conversation_id and e.direction = 'in'
      and e.platform_message_id = c.platform_message_id) end as existing_turn,
  null::text as turn_id, null::text as seq
from in_c c
left join in_m m on m.conversation_id = c.conversation_id
  and m.platform_message_id = c.platform_message_id`,
});

// The calls of turns already recorded. A row still `sending` was left by an attempt of an earlier
// release (which claimed a row before each call) that did not finish: it counts as not sent.
// The look-up is a LATERAL subquery kept apart (`offset 0`), so it can only be an index probe per
// turn: as a plain join, the plan prepared while `messages` was small was a hash join reading
// every outbound row, and a prepared plan is kept until the table is analysed.
const read = (param: string): Part => ({
  with: [],
  select: `select 'read'::text as kind, r.i, null::text as conversation_id, null::text as language,
  null::boolean as inserted, null::text as message_id, null::timestamptz as created_at,
  null::text as existing_turn, null::text as turn_id, m.seq
from jsonb_to_recordset(${param}::jsonb) as r (i int, conversation_id uuid, turn_id text)
cross join lateral (
  select seq from messages m
  where m.conversation_id = r.conversation_id and m.turn_id = r.turn_id
    and m.direction = 'out' and m.seq is not null and m.status <> 'sending'
  offset 0
) m`,
});

// Calls that ended. A call recorded here for the first time is counted in the bot's analytics by
// the same statement (docs/analytics.md), so exactly once: a refusal under `send_failed` with the
// platform's code, and a turn's first call sent in answer to a user's message under
// `bot_response`, timed from the user's message's row (the turn's newest inbound row: an index
// probe from the conversation's newest message back). The console's test chats count nothing.
const outbound = (param: string): Part => ({
  with: [
    `out_r as (
  select * from jsonb_to_recordset(${param}::jsonb) as r (conversation_id uuid, turn_id text,
    seq text, message_type text, body jsonb, status text, platform_message_id text,
    error text, sent_by text, app_id text, channel_type text, failure_code text,
    timed boolean)
)`,
    `out_written as (
  insert into messages (conversation_id, direction, turn_id, seq, message_type, body, status,
    platform_message_id, error, sent_by)
  select conversation_id, 'out', turn_id, seq, message_type, body, status,
    platform_message_id, error, sent_by
  from out_r
  on conflict (conversation_id, turn_id, seq) where direction = 'out'
  do update set status = excluded.status, platform_message_id = excluded.platform_message_id,
    error = excluded.error, updated_at = now()
  where messages.status = 'sending'
  returning conversation_id, turn_id, seq, id, created_at
)`,
    `out_counted as (
  select r.app_id, r.channel_type, r.status, r.failure_code, r.timed, w.conversation_id,
    w.turn_id, w.created_at, (w.created_at at time zone 'utc')::date as day
  from out_written w
  join out_r r on r.conversation_id = w.conversation_id and r.turn_id = w.turn_id and r.seq = w.seq
  where r.app_id is not null and r.channel_type is not null and r.channel_type <> 'console'
)`,
    `out_failures as (
  insert into analytics_events as t (app_id, day, channel_type, event, code, count)
  select app_id, day, channel_type, 'send_failed', coalesce(failure_code, ''), count(*)
  from out_counted where status = 'failed'
  group by 1, 2, 3, 5 order by 1, 2, 3, 5
  on conflict (app_id, day, channel_type, event, code) do update set count = t.count + excluded.count
)`,
    `out_timings as (
  insert into analytics_timings as t (app_id, day, channel_type, measure, bucket, count)
  select c.app_id, c.day, c.channel_type, 'bot_response',
    ${bucketSql('extract(epoch from c.created_at - i.created_at) * 1000')}, count(*)
  from out_counted c
  cross join lateral (
    select m.created_at from messages m
    where m.conversation_id = c.conversation_id and m.direction = 'in' and m.turn_id = c.turn_id
    order by m.id desc limit 1
  ) i
  where c.timed and c.status = 'sent'
  group by 1, 2, 3, 5 order by 1, 2, 3, 5
  on conflict (app_id, day, channel_type, measure, bucket) do update set count = t.count + excluded.count
)`,
    // A Telegram user who blocked the bot (403) hears no more broadcasts (docs/outbound.md). Last
    // in the list: Postgres runs the CTEs an answer does not read after the answer, last to
    // first, so this locks the conversation's row before the rollup rows above. The inbound part's
    // conversation upsert, which the answer reads, runs before them too: every statement here
    // takes conversation rows before rollup rows, so two cannot wait on each other across them.
    `out_blocked as (
  update conversations c set opted_out_at = now()
  from out_counted f
  where c.id = f.conversation_id and c.opted_out_at is null and f.status = 'failed'
    and f.channel_type = 'telegram' and f.failure_code = '403'
)`,
  ],
  select: `select 'out'::text as kind, null::int as i, conversation_id::text as conversation_id,
  null::text as language, null::boolean as inserted, id::text as message_id, created_at,
  null::text as existing_turn, turn_id, seq
from out_written`,
});

const PARTS: Record<RecordKind, (param: string) => Part> = { in: inbound, read, out: outbound };

const statements = new Map<string, PreparedStatement>();

/**
 * The statement for the kinds a batch holds, listed in the order of `RECORD_KINDS`: each kind's
 * part over its own parameter (`$1` the first kind listed, ...).
 */
export function recordStatement(present: readonly RecordKind[]): PreparedStatement {
  if (present.length === 0) throw new Error('a record statement needs at least one kind');
  const key = present.join('_');
  let statement = statements.get(key);
  if (!statement) {
    const parts = present.map((kind, n) => PARTS[kind](`$${n + 1}`));
    const withs = parts.flatMap((part) => part.with);
    const text = `${withs.length > 0 ? `with ${withs.join(',\n')}\n` : ''}${parts
      .map((part) => part.select)
      .join('\nunion all\n')}`;
    statement = prepared(`channel_record_${key}`, text);
    statements.set(key, statement);
  }
  return statement;
}
