/**
 * Knowledge collections: the collection (its text search configuration and the generation that
 * searches read), indexing jobs (progress and per-file outcome), and chunks with a full-text index.
 *
 * A job's chunks are written under its own generation (the job's numeric id); the job finishes by
 * pointing the collection at that generation in one update, so a search, being one statement,
 * reads either the old generation or the new one, never a mix. See docs/knowledge.md.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('collections', (t) => {
    t.bigIncrements('id');
    t.text('name').notNullable().unique();
    t.text('language')
      .notNullable()
      .defaultTo('simple')
      .comment('Postgres text search configuration of the active generation');
    t.bigInteger('active_generation').comment('index_jobs.id whose chunks searches read');
    t.integer('file_count').notNullable().defaultTo(0);
    t.integer('chunk_count').notNullable().defaultTo(0);
    t.timestamp('indexed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('index_jobs', (t) => {
    t.bigIncrements('id').comment('also the generation its chunks are written under');
    t.text('job_id').notNullable().unique().comment('the public id');
    t.text('collection_name').notNullable().index();
    t.jsonb('files').notNullable();
    t.jsonb('options').notNullable().defaultTo('{}');
    t.text('status').notNullable().defaultTo('queued');
    t.integer('files_total').notNullable();
    t.integer('files_done').notNullable().defaultTo(0);
    t.integer('chunks_done').notNullable().defaultTo(0);
    t.jsonb('outcome').notNullable().defaultTo('{}').comment('file name -> its outcome');
    t.text('error');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
  });
  await knex.raw(
    `alter table index_jobs add constraint index_jobs_status_check check (status in ('queued', 'running', 'succeeded', 'partial', 'failed', 'superseded'))`,
  );

  await knex.schema.createTable('chunks', (t) => {
    t.bigIncrements('id');
    t.bigInteger('collection_id')
      .notNullable()
      .references('id')
      .inTable('collections')
      .onDelete('CASCADE');
    t.bigInteger('generation').notNullable();
    t.text('file').notNullable();
    t.integer('ordinal').notNullable().comment('position within the file');
    t.integer('page');
    t.text('sheet');
    t.integer('row_first');
    t.integer('row_last');
    t.text('text').notNullable();
    t.specificType('tsv', 'tsvector').notNullable();
    t.unique(['collection_id', 'generation', 'file', 'ordinal']);
  });
  await knex.raw('create index chunks_tsv on chunks using gin (tsv)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chunks');
  await knex.schema.dropTable('index_jobs');
  await knex.schema.dropTable('collections');
}
