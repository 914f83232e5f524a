/**
 * A conversation as pipeline messages name it ({@link ConversationRef}), built from a row that
 * joins `conversations`, `channels` and `bots`, and the ordering key of its platform chat.
 */
import type { Knex } from './db.ts';
import type { ConversationRef } from './messages.ts';

/** The columns a {@link ConversationRef} is built from (`user_language` null until known). */
export interface ConversationRefRow {
  app_id: string;
  channel_id: string;
  channel_type: ConversationRef['channel_type'];
  conversation_id: string;
  chat_id: string;
  user_pid: string;
  user_language: string | null;
  bot_language: string;
}

export function conversationRefOfRow(row: ConversationRefRow): ConversationRef {
  return {
    app_id: row.app_id,
    channel_id: row.channel_id,
    channel_type: row.channel_type,
    conversation_id: row.conversation_id,
    chat_id: row.chat_id,
    user_pid: row.user_pid,
    ...(row.user_language ? { user_language: row.user_language } : {}),
    bot_language: row.bot_language,
  };
}

/**
 * The ordering key the edge gives a chat's platform callbacks (`<app_id>:<chat_id>`): what is
 * published for the conversation from elsewhere carries it to be handled in order with the user's
 * messages.
 */
export function chatOrderingKey(appId: string, chatId: string): string {
  return `${appId}:${chatId}`;
}

/**
 * `conversations` joined with its channel and bot, selecting the columns of a
 * {@link ConversationRefRow}: narrow it with `where` (and add columns) as each reader needs.
 */
export function conversationRefQuery(db: Knex): Knex.QueryBuilder {
  return db('conversations as c')
    .join('channels as ch', 'ch.id', 'c.channel_id')
    .join('bots as b', 'b.app_id', 'c.app_id')
    .select(
      'c.app_id',
      'c.channel_id',
      'ch.type as channel_type',
      'c.id as conversation_id',
      'c.chat_id',
      'c.user_pid',
      'c.language as user_language',
      'b.language as bot_language',
    );
}
