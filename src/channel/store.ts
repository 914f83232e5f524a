/** What `channel` keeps in Postgres: users, conversations and both directions of messages. */
import type { BotRecord, ChannelRecord } from '../shared/bots/types.ts';
import type { Knex } from '../shared/db.ts';
import { isInline, type ConversationRef, type InternalMessage } from '../shared/messages.ts';
import type { Inbound } from './inbound.ts';

export interface RecordedInbound {
  conversation: ConversationRef;
  /** False when this platform message was already recorded under another turn: a platform redelivery. */
  fresh: boolean;
}

/**
 * Creates or updates the user and the conversation, and logs the inbound message, in one
 * transaction. Recording the same message again under the same turn is a no-op that still
 * answers `fresh` (our own redelivery must be passed on again); under another turn it is a
 * platform redelivery and answers `fresh: false`.
 */
export async function recordInbound(
  db: Knex,
  input: { bot: BotRecord; channel: ChannelRecord; inbound: Inbound; turnId: string },
): Promise<RecordedInbound> {
  const { bot, channel, inbound, turnId } = input;
  const pid = `${channel.type}:${inbound.userId}`;
  return db.transaction(async (trx) => {
    await trx('users')
      .insert({
        pid,
        first_name: inbound.firstName ?? null,
        last_name: inbound.lastName ?? null,
        channel_type: channel.type,
        external_id: inbound.userId,
      })
      .onConflict('pid')
      .merge({
        first_name: trx.raw('coalesce(excluded.first_name, users.first_name)'),
        last_name: trx.raw('coalesce(excluded.last_name, users.last_name)'),
        updated_at: trx.fn.now(),
      });
    const conversations: { id: string; language: string | null }[] = await trx('conversations')
      .insert({ app_id: bot.appId, channel_id: channel.id, user_pid: pid, chat_id: inbound.chatId })
      .onConflict(['channel_id', 'chat_id'])
      .merge({ last_message_at: trx.fn.now() })
      .returning(['id', 'language']);
    const conversation = conversations[0];
    const insertedRows: { id: string }[] = await trx('messages')
      .insert({
        conversation_id: conversation!.id,
        direction: 'in',
        turn_id: turnId,
        platform_message_id: inbound.platformMessageId,
        message_type: inbound.message.message_type,
        body: inbound.message,
        status: 'received',
      })
      .onConflict(
        trx.raw(
          '(conversation_id, direction, platform_message_id) where platform_message_id is not null',
        ),
      )
      .ignore()
      .returning('id');
    let fresh = insertedRows.length > 0;
    if (!fresh) {
      const existing: { turn_id: string | null } | undefined = await trx('messages')
        .where({
          conversation_id: conversation!.id,
          direction: 'in',
          platform_message_id: inbound.platformMessageId,
        })
        .first('turn_id');
      fresh = existing?.turn_id === turnId;
    }
    const language = conversation!.language ?? undefined;
    return {
      fresh,
      conversation: {
        app_id: bot.appId,
        channel_id: channel.id,
        channel_type: channel.type,
        conversation_id: conversation!.id,
        chat_id: inbound.chatId,
        user_pid: pid,
        bot_language: bot.language,
        ...(language ? { user_language: language } : {}),
      },
    };
  });
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

/** Statuses of a turn's outbound calls already recorded, by seq. */
export async function sentSoFar(
  db: Knex,
  conversationId: string,
  turnId: string,
): Promise<Map<string, string>> {
  const rows: { seq: string; status: string }[] = await db('messages')
    .where({ conversation_id: conversationId, turn_id: turnId, direction: 'out' })
    .select('seq', 'status');
  return new Map(rows.map((r) => [r.seq, r.status]));
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

/** Marks an outbound call as being sent (or as failed for good, with the platform's reason). */
export async function recordOutbound(
  db: Knex,
  row: {
    conversationId: string;
    turnId: string;
    seq: string;
    message: InternalMessage;
    status: 'sending' | 'sent' | 'failed';
    platformMessageId?: string;
    error?: string;
  },
): Promise<void> {
  await db('messages')
    .insert({
      conversation_id: row.conversationId,
      direction: 'out',
      turn_id: row.turnId,
      seq: row.seq,
      message_type: row.message.message_type,
      body: forTranscript(row.message),
      status: row.status,
      platform_message_id: row.platformMessageId ?? null,
      error: row.error ?? null,
    })
    .onConflict(db.raw("(conversation_id, turn_id, seq) where direction = 'out'"))
    .merge({
      status: row.status,
      platform_message_id: row.platformMessageId ?? null,
      error: row.error ?? null,
      updated_at: db.fn.now(),
    });
}
