/**
 * What a message the bot writes first needs from Postgres (docs/outbound.md): its recipient's
 * conversation (by id, or by channel and platform chat id) with the time of the user's last
 * message, and the request's idempotency key, claimed once per bot.
 */
import type { Knex } from '../../shared/db.ts';
import type { ConversationRefRow } from '../../shared/conversation-ref.ts';
import { conversationRefQuery } from '../../shared/conversation-ref.ts';
import type { InternalMessage } from '../../shared/messages.ts';
import { lastInboundAtSql } from '../../shared/whatsapp-window.ts';

/** Who a message goes to: a conversation of the bot. */
export type Recipient = { conversation_id: string } | { channel_id: string; chat_id: string };

export interface RecipientRow extends ConversationRefRow {
  /** When the user last wrote (channel's record of their messages); null if never. */
  last_inbound_at: Date | null;
}

/** The bot's conversation `to` names, with the user's last message time; undefined if none. */
export async function recipientOf(
  db: Knex,
  appId: string,
  to: Recipient,
): Promise<RecipientRow | undefined> {
  const query = conversationRefQuery(db)
    .select(
      // The newest inbound row: an index probe from the conversation's newest message back.
      db.raw(`${lastInboundAtSql('c.id')} as last_inbound_at`),
    )
    .where('c.app_id', appId)
    .first();
  if ('conversation_id' in to) query.andWhere('c.id', to.conversation_id);
  else query.andWhere({ 'c.channel_id': to.channel_id, 'c.chat_id': to.chat_id });
  return (await query) as RecipientRow | undefined;
}

export interface Claim {
  conversation_id: string;
  turn_id: string;
  request_hash: string;
  /** The message as checked when the key was claimed: what a repeat publishes again. */
  message: InternalMessage;
  /** Who asked first: the transcript names them whoever repeats it. */
  sent_by: string;
}

/** The bot's claim of `key`, if one was made. */
export async function storedClaim(
  db: Knex,
  appId: string,
  key: string,
): Promise<{ fresh: false; claim: Claim } | undefined> {
  const found: unknown = await db('outbound_sends')
    .where({ app_id: appId, idempotency_key: key })
    .first('conversation_id', 'turn_id', 'request_hash', 'message', 'sent_by');
  const stored = found as Claim | undefined;
  return stored ? { fresh: false, claim: stored } : undefined;
}

/**
 * Claims `key` for the bot's request, once: the first claim is stored and answered `fresh`; one
 * that finds another made meanwhile answers that one (the caller compares the request hash).
 */
export async function claimKey(
  db: Knex,
  row: Claim & { app_id: string; idempotency_key: string },
): Promise<{ fresh: boolean; claim: Claim }> {
  const returned: unknown = await db('outbound_sends')
    .insert({ ...row, message: JSON.stringify(row.message) })
    .onConflict(['app_id', 'idempotency_key'])
    .ignore()
    .returning(['conversation_id', 'turn_id', 'request_hash', 'message', 'sent_by']);
  const inserted = returned as Claim[];
  if (inserted[0]) return { fresh: true, claim: inserted[0] };
  // Made meanwhile by a request alike; deleted since (its conversation removed): claim it anew.
  return (await storedClaim(db, row.app_id, row.idempotency_key)) ?? claimKey(db, row);
}

/** Whether channel wrote the message of turn `turnId` to the conversation's transcript. */
export async function hasSentRow(
  db: Knex,
  conversationId: string,
  turnId: string,
): Promise<boolean> {
  const row: unknown = await db('messages')
    .where({ conversation_id: conversationId, direction: 'out', turn_id: turnId })
    .first('id');
  return row !== undefined;
}
