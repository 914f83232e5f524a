/** A conversation's messages for the admin API, in pages (keyset, oldest first). */
import type { Knex } from '../../shared/db.ts';
import { pageOf, type Page } from './paging.ts';

/**
 * The columns of a transcript row, as the conversation's messages and a handoff's transcript show
 * it (the messages add the platform's own message id).
 */
export const TRANSCRIPT_COLUMNS = [
  'id',
  'direction',
  'turn_id',
  'message_type',
  'body',
  'status',
  'error',
  'sent_by',
  'created_at',
];

export async function listMessages(
  db: Knex,
  conversationId: string,
  limit: number,
  after?: string,
  /** Called with the conversation's bot before anything is read (throws to refuse). */
  mayRead: (appId: string) => void = () => undefined,
): Promise<Page<Record<string, unknown>> | undefined> {
  const conversation: { id: string; app_id: string } | undefined = await db('conversations')
    .where({ id: conversationId })
    .first('id', 'app_id');
  if (!conversation) return undefined;
  mayRead(conversation.app_id);
  const query = db('messages')
    .where({ conversation_id: conversationId })
    .select(...TRANSCRIPT_COLUMNS, 'platform_message_id')
    .orderBy('id')
    .limit(limit + 1);
  if (after && /^\d{1,19}$/.test(after)) void query.where('id', '>', after);
  const rows = (await query) as Record<string, unknown>[];
  return pageOf(rows, limit, (row) => String(row.id));
}
