/** A conversation's messages for the admin API, in pages (keyset, oldest first). */
import type { Knex } from '../../shared/db.ts';
import { pageOf, type Page } from './paging.ts';

export async function listMessages(
  db: Knex,
  conversationId: string,
  limit: number,
  after?: string,
): Promise<Page<Record<string, unknown>> | undefined> {
  const conversation = await db<{ id: string }>('conversations')
    .where({ id: conversationId })
    .first('id');
  if (!conversation) return undefined;
  const query = db('messages')
    .where({ conversation_id: conversationId })
    .select(
      'id',
      'direction',
      'turn_id',
      'platform_message_id',
      'message_type',
      'body',
      'status',
      'error',
      'sent_by',
      'created_at',
    )
    .orderBy('id')
    .limit(limit + 1);
  if (after && /^\d{1,19}$/.test(after)) void query.where('id', '>', after);
  const rows = (await query) as Record<string, unknown>[];
  return pageOf(rows, limit, (row) => String(row.id));
}
