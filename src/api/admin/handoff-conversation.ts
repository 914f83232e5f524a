/**
 * A handoff's conversation as the agent's routes read and write it: its pipeline reference and
 * ordering key, the states of its bot's flow, its transcript around the handoff, and internal
 * notes (transcript rows that are never sent). Who and where it is, with its flow state, is
 * `getConversation` (conversations.ts), as the conversation routes read it.
 */
import type { Knex } from '../../shared/db.ts';
import { BotwireError } from '../../shared/errors.ts';
import { statesOf } from '../../shared/flows/flow-changes.ts';
import {
  chatOrderingKey,
  conversationRefOfRow,
  conversationRefQuery,
  type ConversationRefRow,
} from '../../shared/conversation-ref.ts';
import { TRANSCRIPT_COLUMNS } from './transcripts.ts';
import type { ConversationRef } from '../../shared/messages.ts';

/**
 * The conversation of a handoff as pipeline messages name it (what flow would put in a turn's
 * messages), and the ordering key the edge gives its platform callbacks, so that what the api
 * publishes for it is handled in order with the user's messages.
 */
export async function conversationRefOf(
  db: Knex,
  conversationId: string,
): Promise<{ ref: ConversationRef; orderingKey: string }> {
  const rowRaw: unknown = await conversationRefQuery(db).where('c.id', conversationId).first();
  const row = rowRaw as ConversationRefRow | undefined;
  if (!row) throw new BotwireError('BW_ERR_NOT_FOUND', 'the conversation of this handoff is gone');
  return { ref: conversationRefOfRow(row), orderingKey: chatOrderingKey(row.app_id, row.chat_id) };
}

/**
 * Writes an agent's internal note into the transcript: an outbound row of type and status `note`,
 * which no component ever sends.
 */
export async function addNote(
  db: Knex,
  input: { conversationId: string; turnId: string; text: string; actor: string },
): Promise<Record<string, unknown>> {
  const rowRows: unknown = await db('messages')
    .insert({
      conversation_id: input.conversationId,
      direction: 'out',
      turn_id: input.turnId,
      seq: 'note',
      message_type: 'note',
      body: JSON.stringify({ text: input.text }),
      status: 'note',
      sent_by: input.actor,
    })
    .returning(TRANSCRIPT_COLUMNS);
  const [row] = rowRows as Record<string, unknown>[];
  return row!;
}

/** The last `limit` transcript rows before the handoff began (what led to it), oldest first. */
export async function transcriptBefore(
  db: Knex,
  conversationId: string,
  before: Date,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const rowsRaw: unknown = await db('messages')
    .where({ conversation_id: conversationId })
    .where('created_at', '<', before)
    .select(...TRANSCRIPT_COLUMNS)
    .orderBy('id', 'desc')
    .limit(limit);
  const rows = rowsRaw as Record<string, unknown>[];
  return rows.reverse();
}

/** The transcript since the handoff began, oldest first, at most `limit` rows (from its start). */
export async function transcriptSince(
  db: Knex,
  conversationId: string,
  since: Date,
  limit: number,
): Promise<Record<string, unknown>[]> {
  return (await db('messages')
    .where({ conversation_id: conversationId })
    .where('created_at', '>=', since)
    .select(...TRANSCRIPT_COLUMNS)
    .orderBy('id')
    .limit(limit)) as Record<string, unknown>[];
}

/**
 * The states of the bot's published flow an agent may hand the conversation back at, or
 * undefined when the bot is gone.
 */
export async function flowStatesOf(db: Knex, appId: string): Promise<string[] | undefined> {
  const botRaw: unknown = await db('bots').where({ app_id: appId }).first('flow');
  const bot = botRaw as { flow: unknown } | undefined;
  return bot && Object.keys(statesOf(bot.flow)).sort();
}
