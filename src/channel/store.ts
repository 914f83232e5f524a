/** What `channel` keeps in Postgres: users, conversations and both directions of messages. */
import type { BotRecord, ChannelRecord } from '../shared/bots/types.ts';
import { prepared, runPrepared, type Knex } from '../shared/db.ts';
import { isInline, type ConversationRef, type InternalMessage } from '../shared/messages.ts';
import { Batcher } from '../shared/batcher.ts';
import { BotwireError } from '../shared/errors.ts';
import { storableJson } from '../shared/pg-text.ts';
import { bucketSql } from '../shared/analytics-timings.ts';
import type { Inbound } from './inbound.ts';

export interface RecordedInbound {
  conversation: ConversationRef;
  /** False when this platform message was already recorded under another turn: a platform redelivery. */
  fresh: boolean;
  /** The transcript row, when this call wrote it (not when it was recorded before). */
  written?: WrittenRow;
}

/** A transcript row a statement wrote: its id (a bigint, as text) and when. */
export interface WrittenRow {
  messageId: string;
  createdAt: Date;
}

// One statement, one round trip, for every message of a batch (group commit,
// `shared/batcher.ts`): the users and the conversations are upserted and the messages logged in
// data-modifying CTEs, atomically. The batch is one JSON parameter, so the statement's text never
// varies and it is prepared once per connection (`shared/db.ts`).
//
// Rows are written only when something changed: a user when their name did, a conversation's
// `last_message_at` when it is over a minute old (it orders the transcript list, to the minute).
// An update writes a new row version, and `last_message_at` is indexed, so rewriting it on every
// message would add an entry to each of the conversation's four indexes. A conversation left as it was is read
// from the statement's snapshot (`known`). `existing_turn` is read from that snapshot too, i.e.
// the row as it was before this statement, and only for a message this statement did not insert
// (a redelivery): a fresh message, nearly every one, costs no look-up (null, as the snapshot
// would answer).
//
// A batch holds each conversation once: `existing_turn` could not see a sibling row of the same
// statement, so `recordInboundRows` refuses a batch that repeats one, and the Batcher records
// its messages one by one (a process handles a conversation's messages one after another, so
// this does not happen while order holds). A batch may hold one user twice (one person writing
// to two bots): the user is upserted once, with the names of the newest message that has any.
// Look-ups are LATERAL subqueries kept apart (`offset 0`), so each is an index probe whatever the
// tables' statistics were when the plan was prepared.
const RECORD_INBOUND = prepared(
  'channel_record_inbound',
  `with r as (
  select * from jsonb_to_recordset($1::jsonb) as r (i int, pid text, first_name text,
    last_name text, channel_type text, external_id text, app_id text, channel_id uuid,
    chat_id text, turn_id text, platform_message_id text, message_type text, body jsonb)
), u as (
  insert into users (pid, first_name, last_name, channel_type, external_id)
  select distinct on (pid) pid, first_name, last_name, channel_type, external_id
  from r order by pid, (first_name is null and last_name is null), i desc
  on conflict (pid) do update set
    first_name = coalesce(excluded.first_name, users.first_name),
    last_name = coalesce(excluded.last_name, users.last_name),
    updated_at = now()
  where (users.first_name, users.last_name) is distinct from
    (coalesce(excluded.first_name, users.first_name), coalesce(excluded.last_name, users.last_name))
), written as (
  insert into conversations (app_id, channel_id, user_pid, chat_id)
  select app_id, channel_id, pid, chat_id from r
  on conflict (channel_id, chat_id) do update set last_message_at = now()
  where conversations.last_message_at < now() - interval '1 minute'
  returning id, channel_id, chat_id, language
), c as (
  select r.*, coalesce(w.id, known.id) as conversation_id,
    case when w.id is null then known.language else w.language end as language
  from r
  left join written w on w.channel_id = r.channel_id and w.chat_id = r.chat_id
  left join lateral (
    select k.id, k.language from conversations k
    where w.id is null and k.channel_id = r.channel_id and k.chat_id = r.chat_id
    offset 0
  ) known on true
), m as (
  insert into messages (conversation_id, direction, turn_id, platform_message_id, message_type, body, status)
  select conversation_id, 'in', turn_id, platform_message_id, message_type, body, 'received'
  from c where conversation_id is not null
  on conflict (conversation_id, direction, platform_message_id) where platform_message_id is not null
  do nothing
  returning id, conversation_id, platform_message_id, created_at
)
select c.i, c.conversation_id as id, c.language,
  m.id is not null as inserted, m.id::text as message_id, m.created_at,
  case when m.id is null then (select e.turn_id from messages e
    where e.conversation_id = c.conversation_id and e.direction = 'in'
      and e.platform_message_id = c.platform_message_id) end as existing_turn
from c
left join m on m.conversation_id = c.conversation_id
  and m.platform_message_id = c.platform_message_id`,
);

/** What `recordInbound` needs of one message. */
export interface InboundInput {
  bot: BotRecord;
  channel: ChannelRecord;
  inbound: Inbound;
  turnId: string;
}

/** The user's key: one per platform account, whichever bot they write to. */
function userPid(channel: ChannelRecord, inbound: Inbound): string {
  return `${channel.type}:${inbound.userId}`;
}

async function recordInboundRows(
  db: Knex,
  inputs: readonly InboundInput[],
): Promise<(RecordedInbound | BotwireError)[]> {
  const conversations = new Set(inputs.map((x) => `${x.channel.id}/${x.inbound.chatId}`));
  if (conversations.size < inputs.length)
    throw new Error('a batch repeats a conversation: recorded one by one instead');
  const rows = await runPrepared<{
    i: number;
    id: string | null;
    language: string | null;
    inserted: boolean;
    message_id: string | null;
    created_at: Date | null;
    existing_turn: string | null;
  }>(db, RECORD_INBOUND, [
    JSON.stringify(
      inputs.map(({ channel, inbound, bot, turnId }, i) => ({
        i,
        pid: userPid(channel, inbound),
        first_name: inbound.firstName ?? null,
        last_name: inbound.lastName ?? null,
        channel_type: channel.type,
        external_id: inbound.userId,
        app_id: bot.appId,
        channel_id: channel.id,
        chat_id: inbound.chatId,
        turn_id: turnId,
        platform_message_id: inbound.platformMessageId,
        message_type: inbound.message.message_type,
        body: inbound.message,
      })),
    ),
  ]);
  const byIndex = new Map(rows.map((row) => [row.i, row]));
  return inputs.map(({ bot, channel, inbound, turnId }, i) => {
    const row = byIndex.get(i);
    // No id: another process created this conversation after this statement's snapshot was
    // taken (it conflicted, yet the snapshot cannot see it). Nothing was written for this
    // message; a retry sees the conversation.
    if (!row?.id)
      return new BotwireError('BW_ERR_STATE_CONFLICT', 'the conversation was created concurrently');
    const language = row.language ?? undefined;
    return {
      fresh: row.inserted || row.existing_turn === turnId,
      ...(row.inserted && row.message_id && row.created_at
        ? { written: { messageId: row.message_id, createdAt: row.created_at } }
        : {}),
      conversation: {
        app_id: bot.appId,
        channel_id: channel.id,
        channel_type: channel.type,
        conversation_id: row.id,
        chat_id: inbound.chatId,
        user_pid: userPid(channel, inbound),
        bot_language: bot.language,
        ...(language ? { user_language: language } : {}),
      },
    };
  });
}

function settled(result: RecordedInbound | BotwireError): RecordedInbound {
  if (result instanceof BotwireError) throw result;
  return result;
}

/**
 * Creates or updates the user and the conversation, and logs the inbound message, atomically in
 * one statement. Recording the same message again under the same turn is a no-op that still
 * answers `fresh` (our own redelivery must be passed on again); under another turn it is a
 * platform redelivery and answers `fresh: false`.
 */
export async function recordInbound(db: Knex, input: InboundInput): Promise<RecordedInbound> {
  const [result] = await recordInboundRows(db, [input]);
  return settled(result!);
}

/**
 * `recordInbound` by group commit: the messages that arrive while the process is busy are
 * recorded by one statement, one commit. Each caller resolves once its row committed.
 * @param onWritten told of each row written, after its commit (the live `message` event).
 */
export function batchedRecordInbound(
  db: Knex,
  onWritten?: (input: InboundInput, recorded: RecordedInbound & { written: WrittenRow }) => void,
): (input: InboundInput) => Promise<RecordedInbound> {
  const batcher = new Batcher<InboundInput, RecordedInbound | BotwireError>((inputs) =>
    recordInboundRows(db, inputs),
  );
  return async (input) => {
    const recorded = settled(await batcher.add(input));
    if (onWritten && recorded.written) onWritten(input, { ...recorded, written: recorded.written });
    return recorded;
  };
}

/**
 * Records a platform delivery status (sent, delivered, read, failed) on the outbound message. A
 * message that fails after the platform took it (WhatsApp reports that later, by status) counts
 * in the bot's analytics as a send failure with the platform's `code`, by the same statement, so
 * once: a repeated `failed` status updates nothing.
 */
export async function recordStatus(
  db: Knex,
  /** The channel the status came for: only its messages are touched. */
  channelId: string,
  platformMessageId: string,
  status: string,
  failure: { error?: string | undefined; code?: string | undefined } = {},
): Promise<number> {
  // Statuses only move forward (a late `delivered` must not undo `read`); `failed` always lands.
  const earlier: Record<string, string[]> = {
    sent: ['sending'],
    delivered: ['sending', 'sent'],
    read: ['sending', 'sent', 'delivered'],
    failed: ['sending', 'sent', 'delivered', 'read'],
  };
  const from = earlier[status];
  if (!from) return 0;
  const { rows } = await db.raw<{ rows: { n: number }[] }>(
    `with updated as (
       update messages set status = ?, error = coalesce(?, error), updated_at = now()
       where platform_message_id = ? and direction = 'out' and status = any(?::text[])
         and exists (select 1 from conversations c
           where c.id = messages.conversation_id and c.channel_id = ?)
       returning conversation_id, updated_at
     ),
     counted as (
       insert into analytics_events as t (app_id, day, channel_type, event, code, count)
       select c.app_id, (u.updated_at at time zone 'utc')::date, ch.type, 'send_failed', ?, count(*)
       from updated u
       join conversations c on c.id = u.conversation_id
       join channels ch on ch.id = c.channel_id
       where ?::text = 'failed' and ch.type <> 'console'
       group by 1, 2, 3
       on conflict (app_id, day, channel_type, event, code) do update set count = t.count + excluded.count
     )
     select count(*)::int as n from updated`,
    [status, failure.error ?? null, platformMessageId, from, channelId, failure.code ?? '', status],
  );
  return rows[0]?.n ?? 0;
}

/**
 * What the transcript keeps of a message: a voice note we made keeps its text, type and size, not
 * its bytes (up to 1 MiB a row otherwise).
 */
function forTranscript(message: InternalMessage): object {
  if (message.message_type !== 'audio' || !isInline(message.media)) return message;
  const { data_base64: data, mime_type: mimeType } = message.media;
  return {
    ...message,
    media: { inline: true, mime_type: mimeType, bytes: Buffer.byteLength(data, 'base64') },
  };
}

/** An outbound call of a turn, keyed (conversation, turn, seq). */
export interface OutboundCall {
  conversationId: string;
  turnId: string;
  seq: string;
}

/** Where an outbound call went, for the live `message` event (not stored on the row). */
export interface OutboundTarget {
  appId?: string;
  channelType?: string;
}

/** How a call ended. */
export type OutboundOutcome =
  | { status: 'sent'; platformMessageId: string }
  /** `code`: the platform's (`PlatformError.code`), as analytics counts refusals. */
  | { status: 'failed'; error: string; code?: string };

/** A call that ended, as its transcript row records it. */
export interface OutboundRecord extends OutboundCall, OutboundTarget {
  message: InternalMessage;
  outcome: OutboundOutcome;
  /** Who wrote the message when not the bot (an agent's actor, during a handoff). */
  sentBy?: string;
  /** The turn's first call, answering a user's message: its time counts as the bot's response. */
  timed?: boolean;
}

// Both statements take a batch as one JSON array parameter, so that their text never varies and
// each is prepared once per connection (`shared/db.ts`); both run by group commit
// (`shared/batcher.ts`). A row still `sending` was left by an attempt of an earlier release
// (which claimed a row before each call) that did not finish: it counts as not sent.
// The look-up is a LATERAL subquery kept apart (`offset 0`), so it can only be an index probe per
// turn: as a plain join, the plan prepared while `messages` was small was a hash join reading
// every outbound row, and a prepared plan is kept until the table is analysed.
const RECORDED_OUTBOUND = prepared(
  'channel_recorded_outbound',
  `select r.i, m.seq
   from jsonb_to_recordset($1::jsonb) as r (i int, conversation_id uuid, turn_id text)
   cross join lateral (
     select seq from messages m
     where m.conversation_id = r.conversation_id and m.turn_id = r.turn_id
       and m.direction = 'out' and m.seq is not null and m.status <> 'sending'
     offset 0
   ) m`,
);

// A call recorded here for the first time is counted in the bot's analytics by the same statement
// (docs/analytics.md), so exactly once: a refusal under `send_failed` with the platform's code,
// and a turn's first call sent in answer to a user's message under `bot_response`, timed from the
// user's message's row (the turn's newest inbound row: an index probe from the conversation's
// newest message back). The console's test chats count nothing.
const RECORD_OUTBOUND = prepared(
  'channel_record_outbound',
  `with r as (
     select * from jsonb_to_recordset($1::jsonb) as r (conversation_id uuid, turn_id text,
       seq text, message_type text, body jsonb, status text, platform_message_id text,
       error text, sent_by text, app_id text, channel_type text, failure_code text,
       timed boolean)
   ),
   written as (
     insert into messages (conversation_id, direction, turn_id, seq, message_type, body, status,
       platform_message_id, error, sent_by)
     select conversation_id, 'out', turn_id, seq, message_type, body, status,
       platform_message_id, error, sent_by
     from r
     on conflict (conversation_id, turn_id, seq) where direction = 'out'
     do update set status = excluded.status, platform_message_id = excluded.platform_message_id,
       error = excluded.error, updated_at = now()
     where messages.status = 'sending'
     returning conversation_id, turn_id, seq, id, created_at
   ),
   counted as (
     select r.app_id, r.channel_type, r.status, r.failure_code, r.timed, w.conversation_id,
       w.turn_id, w.created_at, (w.created_at at time zone 'utc')::date as day
     from written w
     join r on r.conversation_id = w.conversation_id and r.turn_id = w.turn_id and r.seq = w.seq
     where r.app_id is not null and r.channel_type is not null and r.channel_type <> 'console'
   ),
   failures as (
     insert into analytics_events as t (app_id, day, channel_type, event, code, count)
     select app_id, day, channel_type, 'send_failed', coalesce(failure_code, ''), count(*)
     from counted where status = 'failed'
     group by 1, 2, 3, 5 order by 1, 2, 3, 5
     on conflict (app_id, day, channel_type, event, code) do update set count = t.count + excluded.count
   ),
   -- A Telegram user who blocked the bot (403) hears no more broadcasts (docs/outbound.md).
   blocked as (
     update conversations c set opted_out_at = now()
     from counted f
     where c.id = f.conversation_id and c.opted_out_at is null and f.status = 'failed'
       and f.channel_type = 'telegram' and f.failure_code = '403'
   ),
   timings as (
     insert into analytics_timings as t (app_id, day, channel_type, measure, bucket, count)
     select c.app_id, c.day, c.channel_type, 'bot_response',
       ${bucketSql('extract(epoch from c.created_at - i.created_at) * 1000')}, count(*)
     from counted c
     cross join lateral (
       select m.created_at from messages m
       where m.conversation_id = c.conversation_id and m.direction = 'in' and m.turn_id = c.turn_id
       order by m.id desc limit 1
     ) i
     where c.timed and c.status = 'sent'
     group by 1, 2, 3, 5 order by 1, 2, 3, 5
     on conflict (app_id, day, channel_type, measure, bucket) do update set count = t.count + excluded.count
   )
   select conversation_id, turn_id, seq, id::text as message_id, created_at from written`,
);

async function recordedOutboundRows(
  db: Knex,
  turns: readonly Omit<OutboundCall, 'seq'>[],
): Promise<Set<string>[]> {
  const rows = await runPrepared<{ i: number; seq: string }>(db, RECORDED_OUTBOUND, [
    JSON.stringify(
      turns.map((turn, i) => ({ i, conversation_id: turn.conversationId, turn_id: turn.turnId })),
    ),
  ]);
  const seqs = turns.map(() => new Set<string>());
  for (const row of rows) seqs[row.i]!.add(row.seq);
  return seqs;
}

/**
 * The calls of a turn already recorded (`sent`, or `failed` for good): a redelivered or
 * republished turn skips them. A read: one round trip, no commit.
 * @returns their seqs.
 */
export async function recordedOutbound(
  db: Knex,
  turn: Omit<OutboundCall, 'seq'>,
): Promise<Set<string>> {
  const [seqs] = await recordedOutboundRows(db, [turn]);
  return seqs!;
}

async function recordOutboundRows(
  db: Knex,
  records: readonly OutboundRecord[],
): Promise<(WrittenRow | undefined)[]> {
  const rows = records.map((record) => {
    const { conversationId, turnId, seq, message, outcome, sentBy } = record;
    return {
      conversation_id: conversationId,
      turn_id: turnId,
      seq,
      message_type: message.message_type,
      body: forTranscript(message),
      status: outcome.status,
      platform_message_id: outcome.status === 'sent' ? outcome.platformMessageId : null,
      error: outcome.status === 'failed' ? outcome.error : null,
      sent_by: sentBy ?? null,
      app_id: record.appId ?? null,
      channel_type: record.channelType ?? null,
      failure_code: outcome.status === 'failed' ? (outcome.code ?? null) : null,
      timed: record.timed === true,
    };
  });
  const inserted = await runPrepared<{
    conversation_id: string;
    turn_id: string;
    seq: string;
    message_id: string;
    created_at: Date;
  }>(db, RECORD_OUTBOUND, [storableJson(rows)]);
  const written = new Map(
    inserted.map((r) => [
      `${r.conversation_id}/${r.turn_id}/${r.seq}`,
      { messageId: r.message_id, createdAt: r.created_at },
    ]),
  );
  return records.map((r) => written.get(`${r.conversationId}/${r.turnId}/${r.seq}`));
}

/**
 * Records a call that ended, once the platform answered: one row, inserted `sent` with the
 * platform's message id or `failed` with its reason.
 * @returns false when another attempt had already recorded the same call (it was sent twice).
 */
export async function recordOutbound(db: Knex, record: OutboundRecord): Promise<boolean> {
  const [written] = await recordOutboundRows(db, [record]);
  return written !== undefined;
}

/**
 * `recordedOutbound` by batch (`shared/batcher.ts`): the look-ups made before calls while the
 * process is busy are answered by one statement.
 */
export function batchedRecordedOutbound(
  db: Knex,
): (turn: Omit<OutboundCall, 'seq'>) => Promise<Set<string>> {
  const batcher = new Batcher<Omit<OutboundCall, 'seq'>, Set<string>>((turns) =>
    recordedOutboundRows(db, turns),
  );
  return (turn) => batcher.add(turn);
}

/**
 * `recordOutbound` by group commit: the calls that end while the process is busy are recorded
 * by one multi-row INSERT, one commit. Each caller resolves once its row committed. No two of
 * them are the same call: a turn's calls are sent one after another, and one conversation's
 * turns never overlap in a process.
 * @param onWritten told of each row written, after its commit (the live `message` event).
 */
export function batchedRecordOutbound(
  db: Knex,
  onWritten?: (record: OutboundRecord, written: WrittenRow) => void,
): (record: OutboundRecord) => Promise<boolean> {
  const batcher = new Batcher<OutboundRecord, WrittenRow | undefined>((records) =>
    recordOutboundRows(db, records),
  );
  return async (record) => {
    const written = await batcher.add(record);
    if (written && onWritten) onWritten(record, written);
    return written !== undefined;
  };
}
