/**
 * Text search in transcripts (`GET /v2/bots/<app_id>/conversations?q=`): a GIN index over the
 * words of each message (its text, caption or chosen title) with the `simple` configuration, which
 * neither stems nor drops stop words, so it serves every language alike. The expression must stay
 * the same as `MESSAGE_TSV` in src/api/admin/conversations.ts, or the index is not used.
 *
 * Built CONCURRENTLY, outside a transaction: channel keeps writing messages while it is built.
 * An interrupted build leaves an invalid index, which the next run drops and builds again.
 */
import type { Knex } from 'knex';

export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index concurrently if exists messages_text_search');
  await knex.raw(
    `create index concurrently messages_text_search on messages using gin
      (to_tsvector('simple'::regconfig, coalesce(body->>'text', body->>'caption', body->>'title', '')))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index concurrently if exists messages_text_search');
}
