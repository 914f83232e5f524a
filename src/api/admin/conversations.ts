/**
 * Conversations of the admin API: a bot's conversations in pages (newest activity first, keyset),
 * filtered by channel type, chat id, time of the last message and words in its messages; one
 * conversation with its flow state and variables.
 *
 * Text search: every word of `q` must occur in one message of the conversation (whole words, or
 * prefixes of 3 characters or more with a letter), matched by Postgres full-text search with the
 * `simple` configuration (no stemming, no stop words: bots speak every language), through the
 * GIN index `messages_text_search` over the same expression as {@link MESSAGE_TSV}. The figures
 * are in docs/edge.md ("Conversations").
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import type { Knex } from '../../shared/db.ts';
import { BotwireError } from '../../shared/errors.ts';
import { queryTerms, tsqueryText } from '../../shared/knowledge/search.ts';
import type { Edge } from '../edge.ts';
import { afterOf, limitOf, pageOf, queryOf, type Page } from './paging.ts';
import { requireBotAccess } from './principal.ts';
import { UUID } from '../ids.ts';

/** The words of a message: its text, caption or chosen title (`m` is the `messages` row). */
const MESSAGE_TEXT = `coalesce(m.body->>'text', m.body->>'caption', m.body->>'title', '')`;

/**
 * The indexed tsvector of a message. It must stay the expression of the index made by migration
 * 20261125203000_message_text_search, or Postgres cannot use the index.
 */
export const MESSAGE_TSV = `to_tsvector('simple'::regconfig, ${MESSAGE_TEXT})`;

/** Characters of the last message shown in a list item. */
const PREVIEW_CHARS = 120;

/** The filters of `GET /v2/bots/<app_id>/conversations` (schemas/http/conversations-query.json). */
export interface ConversationFilters {
  channel_type?: string;
  chat_id?: string;
  /** ISO time: last message at or after. */
  from?: string;
  /** ISO time: last message at or before. */
  to?: string;
  q?: string;
}

export async function listConversations(
  db: Knex,
  appId: string,
  filters: ConversationFilters,
  limit: number,
  after?: string,
): Promise<Page<Record<string, unknown>>> {
  const query = db('conversations as c')
    .join('channels as ch', 'ch.id', 'c.channel_id')
    .leftJoin('users as u', 'u.pid', 'c.user_pid')
    .leftJoin('conversation_state as s', 's.conversation_id', 'c.id')
    .joinRaw(
      `left join lateral (
        select m.message_type, left(${MESSAGE_TEXT}, ${PREVIEW_CHARS}) as preview
        from messages m where m.conversation_id = c.id order by m.id desc limit 1
      ) lm on true`,
    )
    .where('c.app_id', appId)
    .select(
      'c.id',
      'c.channel_id',
      'ch.type as channel_type',
      'c.chat_id',
      'c.language',
      'c.created_at',
      'c.last_message_at',
      'c.user_pid',
      'u.first_name',
      'u.last_name',
      db.raw(`s.state->>'state' as state`),
      db.raw(`nullif(lm.preview, '') as last_message_preview`),
      'lm.message_type as last_message_type',
    )
    .orderBy([
      { column: 'c.last_message_at', order: 'desc' },
      { column: 'c.id', order: 'desc' },
    ])
    .limit(limit + 1);
  // Test chats are operators' tries: listed only when asked for (channel_type=console).
  if (filters.channel_type !== undefined) void query.where('ch.type', filters.channel_type);
  else void query.whereNot('ch.type', 'console');
  if (filters.chat_id !== undefined) void query.where('c.chat_id', filters.chat_id);
  if (filters.from !== undefined) void query.where('c.last_message_at', '>=', filters.from);
  if (filters.to !== undefined) void query.where('c.last_message_at', '<=', filters.to);
  if (filters.q !== undefined) {
    const terms = queryTerms(filters.q);
    if (terms.length === 0) {
      throw new BotwireError('BW_ERR_SCHEMA', 'q must contain a word', {
        details: { problems: [{ path: '/query/q', message: 'must contain a word' }] },
      });
    }
    // The tsquery as a constant (a bound value, not a subquery): the planner estimates how many
    // messages match from the index's statistics and picks the index or the conversation order.
    void query.whereRaw(
      `exists (select 1 from messages m where m.conversation_id = c.id
        and ${MESSAGE_TSV} @@ to_tsquery('simple'::regconfig, ?))`,
      [tsqueryText(terms, '&', 'prefixes')],
    );
  }
  if (after) {
    // Compared in SQL: timestamps keep microseconds there, and lose them in a JS Date.
    void query.whereRaw(
      '(c.last_message_at, c.id) < (select last_message_at, id from conversations where id = ?)',
      [after],
    );
  }
  const rows = (await query) as Record<string, unknown>[];
  return pageOf(rows, limit, (row) => String(row.id));
}

/** One conversation with its flow state name and variables, or undefined. */
export async function getConversation(
  db: Knex,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const row: unknown = await db('conversations as c')
    .join('channels as ch', 'ch.id', 'c.channel_id')
    .leftJoin('users as u', 'u.pid', 'c.user_pid')
    .leftJoin('conversation_state as s', 's.conversation_id', 'c.id')
    .where('c.id', id)
    .first(
      'c.id',
      'c.app_id',
      'c.channel_id',
      'ch.type as channel_type',
      'c.chat_id',
      'c.language',
      'c.user_pid',
      'u.first_name',
      'u.last_name',
      db.raw(`s.state->>'state' as state`),
      db.raw(`coalesce(s.state->'vars', '{}'::jsonb) as variables`),
      db.raw(`coalesce((s.state->>'ended')::boolean, false) as ended`),
      's.updated_at as state_updated_at',
      'c.created_at',
      'c.last_message_at',
      'c.opted_out_at',
    );
  return row as Record<string, unknown> | undefined;
}

function filtersOf(ctx: Context, edge: Edge): ConversationFilters {
  const { channel_type, chat_id, from, to, q } = queryOf<ConversationFilters>(
    ctx,
    edge.schemas,
    'http/conversations-query',
  );
  return {
    ...(channel_type !== undefined ? { channel_type } : {}),
    ...(chat_id !== undefined ? { chat_id } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(q !== undefined ? { q } : {}),
  };
}

export function conversationRoutes(router: Router, edge: Edge): void {
  router.get('/v2/bots/:app_id/conversations', async (ctx) => {
    const appId = ctx.params.app_id ?? '';
    // App ids are UUIDs: anything else cannot exist, and must not reach a uuid-typed query.
    if (!UUID.test(appId) || !(await edge.directory.byAppId(appId)))
      throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    requireBotAccess(ctx, appId);
    const filters = filtersOf(ctx, edge);
    ctx.body = await listConversations(edge.db, appId, filters, limitOf(ctx), afterOf(ctx, UUID));
  });

  router.get('/v2/conversations/:id', async (ctx) => {
    const id = ctx.params.id ?? '';
    const conversation = UUID.test(id) ? await getConversation(edge.db, id) : undefined;
    if (!conversation) throw new BotwireError('BW_ERR_NOT_FOUND', 'no conversation has this id');
    requireBotAccess(ctx, String(conversation.app_id));
    ctx.body = conversation;
  });
}
