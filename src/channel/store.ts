/** What `channel` keeps in Postgres: users, conversations and both directions of messages. */
import type { BotRecord, ChannelRecord } from '../shared/bots/types.ts';
import { prepared, runPrepared, type Knex } from '../shared/db.ts';
import { isInline, type ConversationRef, type InternalMessage } from '../shared/messages.ts';
import { Batcher } from '../shared/batcher.ts';
import type { Inbound } from './inbound.ts';

export interface RecordedInbound {
  conversation: ConversationRef;
  /** False when this platform message was already recorded under another turn: a platform redelivery. */
  fresh: boolean;
}

// One statement, one round trip: the user and the conversation are upserted and the message is
// logged in data-modifying CTEs (atomic like the transaction it replaces, which took five round
// trips: BEGIN, three INSERTs, COMMIT). `existing_turn` is read from the statement's snapshot,
// i.e. the row as it was before this statement: null when this statement inserted it. Prepared
// (`shared/db.ts`): planning this statement cost Postgres more than running it.
const RECORD_INBOUND = prepared(
  'channel_record_inbound',
  `with u as (
  insert into users (pid, first_name, last_name, channel_type, external_id)
  values ($1, $2, $3, $4, $5)
  on conflict (pid) do update set
    first_name = coalesce(excluded.first_name, users.first_name),
    last_name = coalesce(excluded.last_name, users.last_name),
    updated_at = now()
  returning pid
), c as (
  insert into conversations (app_id, channel_id, user_pid, chat_id)
  select $6, $7, u.pid, $8 from u
  on conflict (channel_id, chat_id) do update set last_message_at = now()
  returning id, language
), m as (
  insert into messages (conversation_id, direction, turn_id, platform_message_id, message_type, body, status)
  select c.id, 'in', $9, $10, $11, cast($12 as jsonb), 'received' from c
  on conflict (conversation_id, direction, platform_message_id) where platform_message_id is not null
  do nothing
  returning id
)
select c.id, c.language,
  exists (select 1 from m) as inserted,
  (select e.turn_id from messages e
    where e.conversation_id = c.id and e.direction = 'in'
      and e.platform_message_id = $10) as existing_turn
from c`,
);

/**
 * Creates or updates the user and the conversation, and logs the inbound message, atomically in
 * one statement. Recording the same message again under the same turn is a no-op that still
 * answers `fresh` (our own redelivery must be passed on again); under another turn it is a
 * platform redelivery and answers `fresh: false`.
 */
export async function recordInbound(
  db: Knex,
  input: { bot: BotRecord; channel: ChannelRecord; inbound: Inbound; turnId: string },
): Promise<RecordedInbound> {
  const { bot, channel, inbound, turnId } = input;
  const pid = `${channel.type}:${inbound.userId}`;
  const rows = await runPrepared<{
    id: string;
    language: string | null;
    inserted: boolean;
    existing_turn: string | null;
  }>(db, RECORD_INBOUND, [
    pid,
    inbound.firstName ?? null,
    inbound.lastName ?? null,
    channel.type,
    inbound.userId,
    bot.appId,
    channel.id,
    inbound.chatId,
    turnId,
    inbound.platformMessageId,
    inbound.message.message_type,
    JSON.stringify(inbound.message),
  ]);
  const row = rows[0]!;
  const fresh = row.inserted || row.existing_turn === turnId;
  const language = row.language ?? undefined;
  return {
    fresh,
    conversation: {
      app_id: bot.appId,
      channel_id: channel.id,
      channel_type: channel.type,
      conversation_id: row.id,
      chat_id: inbound.chatId,
      user_pid: pid,
      bot_language: bot.language,
      ...(language ? { user_language: language } : {}),
    },
  };
}

/** Records a platform delivery status (sent, delivered, read, failed) on the outbound message. */
export async function recordStatus(
  db: Knex,
  platformMessageId: string,
  status: string,
  error?: string,
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
  return db('messages')
    .where({ platform_message_id: platformMessageId, direction: 'out' })
    .whereIn('status', from)
    .update({ status, ...(error ? { error } : {}), updated_at: db.fn.now() });
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

/** An outbound call: its row, and the call itself, to be sent once. */
export interface OutboundRow {
  conversationId: string;
  turnId: string;
  seq: string;
  message: InternalMessage;
}

// The outbound calls' rows are claimed and finished by group commit (`shared/batcher.ts`), a
// batch being one JSON array parameter, so that the statements' text never varies and each is
// prepared once per connection (`shared/db.ts`).
const CLAIM_OUTBOUND = prepared(
  'channel_claim_outbound',
  `insert into messages (conversation_id, direction, turn_id, seq, message_type, body, status)
   select r.conversation_id, 'out', r.turn_id, r.seq, r.message_type, r.body, 'sending'
   from jsonb_to_recordset($1::jsonb)
     as r (conversation_id uuid, turn_id text, seq text, message_type text, body jsonb)
   on conflict (conversation_id, turn_id, seq) where direction = 'out'
   do update set updated_at = now() where messages.status = 'sending'
   returning id, conversation_id, turn_id, seq`,
);

const FINISH_OUTBOUND = prepared(
  'channel_finish_outbound',
  `update messages m
   set status = v.status, platform_message_id = v.platform_message_id, error = v.error,
       updated_at = now()
   from jsonb_to_recordset($1::jsonb) as v (id bigint, status text, platform_message_id text, error text)
   where m.id = v.id`,
);

/**
 * Claims outbound calls before they are sent: inserts each row as `sending`, or takes over a row
 * left `sending` by an attempt that did not finish. One statement for all of them; no two may be
 * the same call.
 * @returns per row, the row id to finish, or undefined when the call is already `sent` or
 * `failed` for good (a redelivered turn), so it must not be sent again.
 */
async function claimOutboundRows(
  db: Knex,
  rows: readonly OutboundRow[],
): Promise<(string | undefined)[]> {
  const claimed = await runPrepared<{
    id: string;
    conversation_id: string;
    turn_id: string;
    seq: string;
  }>(db, CLAIM_OUTBOUND, [
    JSON.stringify(
      rows.map((row) => ({
        conversation_id: row.conversationId,
        turn_id: row.turnId,
        seq: row.seq,
        message_type: row.message.message_type,
        body: forTranscript(row.message),
      })),
    ),
  ]);
  const ids = new Map(claimed.map((r) => [`${r.conversation_id}/${r.turn_id}/${r.seq}`, r.id]));
  return rows.map((row) => ids.get(`${row.conversationId}/${row.turnId}/${row.seq}`));
}

/**
 * Claims an outbound call before it is sent (see {@link claimOutboundRows}). One round trip.
 * @returns the row id to finish, or undefined when the call is already `sent` or `failed` for
 * good (a redelivered turn), so it must not be sent again.
 */
export async function claimOutbound(db: Knex, row: OutboundRow): Promise<string | undefined> {
  const [id] = await claimOutboundRows(db, [row]);
  return id;
}

/** How a claimed call ended. */
export type OutboundOutcome =
  { status: 'sent'; platformMessageId: string } | { status: 'failed'; error: string };

/** Records how claimed calls ended: `sent` with the platform's id, or `failed` for good with its reason. */
async function finishOutboundRows(
  db: Knex,
  items: readonly { id: string; outcome: OutboundOutcome }[],
): Promise<void> {
  await runPrepared(db, FINISH_OUTBOUND, [
    JSON.stringify(
      items.map(({ id, outcome }) => ({
        id,
        status: outcome.status,
        platform_message_id: outcome.status === 'sent' ? outcome.platformMessageId : null,
        error: outcome.status === 'failed' ? outcome.error : null,
      })),
    ),
  ]);
}

/** Records how a claimed call ended: `sent` with the platform's id, or `failed` for good with its reason. */
export async function finishOutbound(
  db: Knex,
  id: string,
  outcome: OutboundOutcome,
): Promise<void> {
  await finishOutboundRows(db, [{ id, outcome }]);
}

/**
 * `finishOutbound` by group commit (`shared/batcher.ts`): the calls that end while the process
 * is busy are recorded in one UPDATE, one commit. Each caller resolves once its row committed.
 */
export function batchedFinishOutbound(
  db: Knex,
): (id: string, outcome: OutboundOutcome) => Promise<void> {
  const batcher = new Batcher<{ id: string; outcome: OutboundOutcome }, void>(async (items) => {
    await finishOutboundRows(db, items);
    return items.map(() => undefined);
  });
  return (id, outcome) => batcher.add({ id, outcome });
}

/**
 * `claimOutbound` by group commit: the calls claimed in the same turn of the event loop are
 * claimed by one multi-row statement, one commit. No two of them are the same call: a turn's
 * calls are claimed one after another, and one conversation's turns never overlap in a process.
 */
export function batchedClaimOutbound(db: Knex): (row: OutboundRow) => Promise<string | undefined> {
  const batcher = new Batcher<OutboundRow, string | undefined>((rows) =>
    claimOutboundRows(db, rows),
  );
  return (row) => batcher.add(row);
}
