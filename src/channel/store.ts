/** What `channel` keeps in Postgres: users, conversations and both directions of messages. */
import type { BotRecord, ChannelRecord } from '../shared/bots/types.ts';
import { runPrepared, type Knex } from '../shared/db.ts';
import { isInline, type ConversationRef, type InternalMessage } from '../shared/messages.ts';
import { Batcher } from '../shared/batcher.ts';
import { BotwireError } from '../shared/errors.ts';
import { storableJson } from '../shared/pg-text.ts';
import type { Inbound } from './inbound.ts';
import { RECORD_KINDS, recordStatement, type RecordKind, type RecordRow } from './record-sql.ts';

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

/** A turn's calls, keyed (conversation, turn). */
export type OutboundTurn = Omit<OutboundCall, 'seq'>;

/** One record: an inbound message, the look-up of a turn's recorded calls, or a call that ended. */
type RecordOp =
  | { kind: 'in'; input: InboundInput }
  | { kind: 'read'; turn: OutboundTurn }
  | { kind: 'out'; record: OutboundRecord };

/**
 * Per kind: an inbound message's record (or why it was not written), a turn's recorded seqs, a
 * call's row (none when it was recorded before).
 */
type RecordResult = RecordedInbound | BotwireError | Set<string> | WrittenRow | undefined;

function inboundRow({ channel, inbound, bot, turnId }: InboundInput, i: number): object {
  return {
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
  };
}

function outboundRow(record: OutboundRecord): object {
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
}

/** What the inbound part answered for `input`. */
function recordedInbound(
  row: RecordRow | undefined,
  input: InboundInput,
): RecordedInbound | BotwireError {
  const { bot, channel, inbound, turnId } = input;
  // No conversation: another process created it after this statement's snapshot was taken (it
  // conflicted, yet the snapshot cannot see it). Nothing was written for this message; a retry
  // sees the conversation.
  if (!row?.conversation_id)
    return new BotwireError('BW_ERR_STATE_CONFLICT', 'the conversation was created concurrently');
  const language = row.language ?? undefined;
  return {
    fresh: row.inserted === true || row.existing_turn === turnId,
    ...(row.inserted && row.message_id && row.created_at
      ? { written: { messageId: row.message_id, createdAt: row.created_at } }
      : {}),
    conversation: {
      app_id: bot.appId,
      channel_id: channel.id,
      channel_type: channel.type,
      conversation_id: row.conversation_id,
      chat_id: inbound.chatId,
      user_pid: userPid(channel, inbound),
      bot_language: bot.language,
      ...(language ? { user_language: language } : {}),
    },
  };
}

/** Carries out records of any kinds by one statement; answers in the order of `ops`. */
async function runStatement(db: Knex, ops: readonly RecordOp[]): Promise<RecordResult[]> {
  const ins: InboundInput[] = [];
  const reads: OutboundTurn[] = [];
  const outs: OutboundRecord[] = [];
  // Each op's index in its kind's list, which is its `i` in that part's answer.
  const slots = ops.map((op) =>
    op.kind === 'in'
      ? ins.push(op.input) - 1
      : op.kind === 'read'
        ? reads.push(op.turn) - 1
        : outs.push(op.record) - 1,
  );
  // The inbound part reads an earlier turn from the snapshot, which cannot see a sibling row.
  const conversations = new Set(ins.map((x) => `${x.channel.id}/${x.inbound.chatId}`));
  if (conversations.size < ins.length)
    throw new Error('a batch repeats a conversation: recorded one by one instead');
  const params: Record<RecordKind, () => string> = {
    in: () => JSON.stringify(ins.map(inboundRow)),
    read: () =>
      JSON.stringify(
        reads.map((turn, i) => ({ i, conversation_id: turn.conversationId, turn_id: turn.turnId })),
      ),
    out: () => storableJson(outs.map(outboundRow)),
  };
  const present = RECORD_KINDS.filter((kind) => ops.some((op) => op.kind === kind));
  const rows = await runPrepared<RecordRow>(
    db,
    recordStatement(present),
    present.map((kind) => params[kind]()),
  );
  const inRows = new Map<number, RecordRow>();
  const seqs = reads.map(() => new Set<string>());
  const written = new Map<string, WrittenRow>();
  for (const row of rows) {
    if (row.kind === 'in') inRows.set(row.i!, row);
    else if (row.kind === 'read') seqs[row.i!]!.add(row.seq!);
    else
      written.set(`${row.conversation_id}/${row.turn_id}/${row.seq}`, {
        messageId: row.message_id!,
        createdAt: row.created_at!,
      });
  }
  return ops.map((op, n) => {
    if (op.kind === 'in') return recordedInbound(inRows.get(slots[n]!), op.input);
    if (op.kind === 'read') return seqs[slots[n]!];
    const { conversationId, turnId, seq } = op.record;
    return written.get(`${conversationId}/${turnId}/${seq}`);
  });
}

/**
 * Carries out records of any kinds, in one statement: one round trip, one commit. A batch holding
 * a call that failed beside inbound messages takes two, its calls after the rest: a failure may
 * mark the conversation opted out while an inbound message upserts it, and one statement may not
 * write a row twice. The calls go second so that a failure of either statement leaves no call
 * recorded that the Batcher's one-by-one retry would then find recorded and answer as sent twice:
 * if the first fails nothing committed, and if the second fails its calls were not recorded; the
 * first's inbound messages answer the same again (`fresh`; only their live event is not sent).
 */
async function runRecords(db: Knex, ops: readonly RecordOp[]): Promise<RecordResult[]> {
  const failed = ops.some((op) => op.kind === 'out' && op.record.outcome.status === 'failed');
  if (!failed || !ops.some((op) => op.kind === 'in')) return runStatement(db, ops);
  const calls = ops.filter((op) => op.kind === 'out');
  const rest = ops.filter((op) => op.kind !== 'out');
  const answers = new Map<RecordOp, RecordResult>();
  for (const group of [rest, calls]) {
    const results = await runStatement(db, group);
    group.forEach((op, i) => answers.set(op, results[i]));
  }
  return ops.map((op) => answers.get(op));
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
  const [result] = await runRecords(db, [{ kind: 'in', input }]);
  return settled(result as RecordedInbound | BotwireError);
}

/**
 * The calls of a turn already recorded (`sent`, or `failed` for good): a redelivered or
 * republished turn skips them. Alone a read (one round trip, no commit); by `batchedRecords` it
 * rides in its batch's statement.
 * @returns their seqs.
 */
export async function recordedOutbound(db: Knex, turn: OutboundTurn): Promise<Set<string>> {
  const [seqs] = await runRecords(db, [{ kind: 'read', turn }]);
  return seqs as Set<string>;
}

/**
 * Records a call that ended, once the platform answered: one row, inserted `sent` with the
 * platform's message id or `failed` with its reason.
 * @returns false when another attempt had already recorded the same call (it was sent twice).
 */
export async function recordOutbound(db: Knex, record: OutboundRecord): Promise<boolean> {
  const [written] = await runRecords(db, [{ kind: 'out', record }]);
  return written !== undefined;
}

/** `recordInbound`, `recordedOutbound` and `recordOutbound`, by one group commit. */
export interface BatchedRecords {
  recordInbound: (input: InboundInput) => Promise<RecordedInbound>;
  recorded: (turn: OutboundTurn) => Promise<Set<string>>;
  recordOutbound: (record: OutboundRecord) => Promise<boolean>;
}

/**
 * channel's records by group commit (`shared/batcher.ts`): the inbound messages, the look-ups
 * before calls and the calls that ended while the process is busy are carried out together, by
 * one statement (`record-sql.ts`), so they cost Postgres one round trip and one commit, not one
 * per kind. Each caller resolves once its row committed. No two of them are the same call: a
 * turn's calls are sent one after another, and one conversation's turns never overlap in a
 * process.
 * @param announce told of each row written, after its commit (the live `message` events).
 */
export function batchedRecords(
  db: Knex,
  announce: {
    inbound?: (input: InboundInput, recorded: RecordedInbound & { written: WrittenRow }) => void;
    outbound?: (record: OutboundRecord, written: WrittenRow) => void;
  } = {},
): BatchedRecords {
  const batcher = new Batcher<RecordOp, RecordResult>((ops) => runRecords(db, ops));
  return {
    recordInbound: async (input) => {
      const recorded = settled(
        (await batcher.add({ kind: 'in', input })) as RecordedInbound | BotwireError,
      );
      if (announce.inbound && recorded.written)
        announce.inbound(input, { ...recorded, written: recorded.written });
      return recorded;
    },
    recorded: async (turn) => (await batcher.add({ kind: 'read', turn })) as Set<string>,
    recordOutbound: async (record) => {
      const written = (await batcher.add({ kind: 'out', record })) as WrittenRow | undefined;
      if (written && announce.outbound) announce.outbound(record, written);
      return written !== undefined;
    },
  };
}
