/** Conversations and their messages for the admin API, in pages (keyset, newest activity first). */
import type { Knex } from '../../shared/db.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface Page<T> {
  items: T[];
  /** Pass as `after` for the next page; null on the last page. */
  next_after: string | null;
}

export async function listConversations(
  db: Knex,
  appId: string,
  limit: number,
  after?: string,
): Promise<Page<Record<string, unknown>>> {
  const query = db('conversations as c')
    .leftJoin('users as u', 'u.pid', 'c.user_pid')
    .where('c.app_id', appId)
    .select(
      'c.id',
      'c.channel_id',
      'c.chat_id',
      'c.language',
      'c.created_at',
      'c.last_message_at',
      'c.user_pid',
      'u.first_name',
      'u.last_name',
    )
    .orderBy([
      { column: 'c.last_message_at', order: 'desc' },
      { column: 'c.id', order: 'desc' },
    ])
    .limit(limit + 1);
  if (after && UUID.test(after)) {
    // Compared in SQL: timestamps keep microseconds there, and lose them in a JS Date.
    void query.whereRaw(
      '(c.last_message_at, c.id) < (select last_message_at, id from conversations where id = ?)',
      [after],
    );
  }
  const rows = (await query) as Record<string, unknown>[];
  return page(rows, limit, (row) => String(row.id));
}

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
      'created_at',
    )
    .orderBy('id')
    .limit(limit + 1);
  if (after && /^\d{1,19}$/.test(after)) void query.where('id', '>', after);
  const rows = (await query) as Record<string, unknown>[];
  return page(rows, limit, (row) => String(row.id));
}

function page<T>(rows: T[], limit: number, cursorOf: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_after: rows.length > limit && last ? cursorOf(last) : null };
}
