/**
 * Knowledge searched by meaning (docs/knowledge.md, "Meaning"):
 * - `collections.embedding_model`: the operator's choice for the collection's next index
 *   (`local`, `api`, `none`; null follows EMBEDDINGS_PROVIDER); `vectors_model`: the model of
 *   the active generation's vectors (null: none, searched by words only); `min_similarity`: the
 *   collection's relevance threshold (null follows KNOWLEDGE_MIN_SIMILARITY).
 * - `chunks.text_sha`: SHA-256 of the chunk's text, by which it finds its vector.
 * - `chunk_vectors`: one vector per collection, model and text. Kept apart from the chunks, so a
 *   job that dies mid-file keeps the vectors it made (the retry finds them), a re-index of
 *   unchanged text embeds nothing again, and chunks carried over from a failed file keep theirs.
 * - `unanswered_questions`: the questions no passage answered well: the knowledge gaps.
 * - `collection_terms`: each searchable generation's words and how many chunks hold each, for
 *   ranking rare words over common ones and for typo tolerance (trigram similarity, `pg_trgm`,
 *   which ships with Postgres; where it cannot be created, searches go without typo tolerance).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('collections', (t) => {
    t.text('embedding_model').comment(
      'local, api or none for the next index; null: EMBEDDINGS_PROVIDER',
    );
    t.text('vectors_model').comment("model of the active generation's vectors; null: none");
    t.float('min_similarity').comment(
      'relevance threshold (cosine); null: KNOWLEDGE_MIN_SIMILARITY',
    );
  });
  await knex.schema.alterTable('index_jobs', (t) => {
    t.integer('vectors_made').notNullable().defaultTo(0).comment('chunk vectors this job embedded');
  });
  await knex.raw(`alter table chunks add column text_sha bytea`);
  await knex.raw(`update chunks set text_sha = sha256(convert_to(text, 'UTF8'))`);
  await knex.raw(`
    create table chunk_vectors (
      collection_id bigint not null references collections (id) on delete cascade,
      model text not null,
      text_sha bytea not null,
      dims integer not null,
      embedding bytea not null,
      created_at timestamptz not null default now(),
      primary key (collection_id, model, text_sha)
    )`);
  await knex.raw(
    `comment on column chunk_vectors.embedding is 'unit vector, float32 little-endian'`,
  );
  await knex.raw(`
    create table unanswered_questions (
      id bigserial primary key,
      collection_id bigint not null references collections (id) on delete cascade,
      app_id text references bots (app_id) on delete set null,
      conversation_id text,
      request_id text,
      question text not null,
      best_score real,
      mode text not null,
      created_at timestamptz not null default now()
    )`);
  await knex.raw(
    `create unique index unanswered_questions_request on unanswered_questions (request_id) where request_id is not null`,
  );
  await knex.raw(
    `create index unanswered_questions_by_collection on unanswered_questions (collection_id, id desc)`,
  );
  await knex.raw(`
    create table collection_terms (
      collection_id bigint not null references collections (id) on delete cascade,
      generation bigint not null,
      word text not null,
      ndoc integer not null,
      primary key (collection_id, generation, word)
    )`);
  // Collections indexed before: their searchable generation's word counts, as a swap writes them.
  await knex.raw(`
    insert into collection_terms (collection_id, generation, word, ndoc)
    select c.id, c.active_generation, s.word, s.ndoc
    from collections c
      cross join lateral ts_stat(format(
        'select tsv from chunks where collection_id = %s and generation = %s',
        c.id, c.active_generation)) s
    where c.active_generation is not null`);
  // pg_trgm is a trusted extension (Postgres 13+): a database owner may create it. In public, so
  // every schema's search path (tests use one schema each) finds it by its qualified name.
  await knex.raw('savepoint pg_trgm');
  try {
    await knex.raw('create extension if not exists pg_trgm with schema public');
    await knex.raw('release savepoint pg_trgm');
  } catch {
    await knex.raw('rollback to savepoint pg_trgm');
  }
  const { rows } = await knex.raw<{ rows: { schema: string }[] }>(
    `select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
     where e.extname = 'pg_trgm'`,
  );
  const schema = rows[0]?.schema;
  if (schema) {
    await knex.raw(
      `create index collection_terms_trigrams on collection_terms using gin (word ??.gin_trgm_ops)`,
      [schema],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('collection_terms');
  await knex.schema.dropTable('unanswered_questions');
  await knex.schema.dropTable('chunk_vectors');
  await knex.raw(`alter table chunks drop column text_sha`);
  await knex.schema.alterTable('index_jobs', (t) => t.dropColumn('vectors_made'));
  await knex.schema.alterTable('collections', (t) => {
    t.dropColumn('min_similarity');
    t.dropColumn('vectors_model');
    t.dropColumn('embedding_model');
  });
}
