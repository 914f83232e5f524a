/**
 * Text search in transcripts (`GET /v2/bots/<app_id>/conversations?q=`): a GIN index over the
 * words of each message (its text, caption or chosen title) with the `simple` configuration, which
 * neither stems nor drops stop words, so it serves every language alike. The expression must stay
 * the same as `MESSAGE_TSV` in src/api/admin/conversations.ts, or the index is not used.
 *
 * Built in the migration's transaction, which holds back writes to `messages` while it runs
 * (seconds per million messages). On a large table, build it first with CREATE INDEX
 * CONCURRENTLY under the same name (docs/operations.md, "Postgres"); this then finds it and does
 * nothing. Not CONCURRENTLY here: that waits for every older transaction of the whole database
 * and deadlocks with a concurrent ANALYZE or another such build.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create index if not exists messages_text_search on messages using gin
      (to_tsvector('simple'::regconfig, coalesce(body->>'text', body->>'caption', body->>'title', '')))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists messages_text_search');
}
