/**
 * pgvector where the database has it (docs/knowledge.md, "The vector index"): the extension is
 * created if the server offers it and the role may, and `chunk_vectors` gets `pgv`, each vector
 * also as pgvector's type, filled in from the stored bytes, with an HNSW index per dimension count
 * (`chunk_vectors_pgv_<dims>`) and `chunks (collection_id, text_sha)` to find a vector's chunks.
 * Without pgvector 0.5 or later (the stock Debian Postgres 15 has none) nothing changes and the
 * processes that search keep their vector indexes in memory. A database that gains pgvector
 * later gets this by migrating down past it and up again.
 */
import type { Knex } from 'knex';

/** Rows filled in per statement. */
const BATCH = 1000;
/** pgvector indexes `vector` of at most this many dimensions. */
const HNSW_MAX_DIMS = 2000;

/** pgvector 0.5.0 and later have HNSW. */
function hasHnsw(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 0 || minor >= 5;
}

async function pgvectorSchema(knex: Knex): Promise<string | undefined> {
  const available = await knex.raw<{ rows: { version: string; installed: string | null }[] }>(
    `select default_version as version, installed_version as installed
     from pg_available_extensions where name = 'vector'`,
  );
  const offered = available.rows[0];
  if (!offered) return undefined;
  if (offered.installed === null) {
    if (!hasHnsw(offered.version)) return undefined; // not created: it would not be used
    try {
      // In a savepoint: a role that may not create it leaves the migration's transaction usable.
      await knex.transaction((savepoint) =>
        savepoint.raw('create extension if not exists vector schema public'),
      );
    } catch {
      return undefined; // not permitted: the in-memory index serves
    }
  }
  const { rows } = await knex.raw<{ rows: { schema: string; version: string }[] }>(
    `select n.nspname as schema, e.extversion as version
     from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'vector'`,
  );
  const found = rows[0];
  if (!found || !hasHnsw(found.version)) return undefined;
  return `"${found.schema.replaceAll('"', '""')}"`;
}

export async function up(knex: Knex): Promise<void> {
  const schema = await pgvectorSchema(knex);
  if (!schema) return;
  await knex.raw(`alter table chunk_vectors add column pgv ${schema}.vector`);
  await knex.raw(
    `comment on column chunk_vectors.pgv is 'the embedding as pgvector''s type, for its HNSW index'`,
  );
  await knex.raw(`create index chunks_text_sha on chunks (collection_id, text_sha)`);
  // A page at a time along the primary key. The table is locked from the column's addition to
  // the end of the migration (vector writes and the in-memory index's loads wait): about 70 s per
  // 100,000 vectors for the indexes on a 2-core machine, plus the filling in.
  let after: [string, string, Buffer] = ['0', '', Buffer.alloc(0)];
  for (;;) {
    const { rows } = await knex.raw<{
      rows: { collection_id: string; model: string; text_sha: Buffer; embedding: Buffer }[];
    }>(
      `select collection_id, model, text_sha, embedding from chunk_vectors
       where (collection_id, model, text_sha) > (?::bigint, ?, ?)
       order by collection_id, model, text_sha limit ${BATCH}`,
      after,
    );
    if (rows.length === 0) break;
    const texts = rows.map((row) => {
      const values: number[] = [];
      for (let at = 0; at < row.embedding.length; at += 4)
        values.push(row.embedding.readFloatLE(at));
      return `[${values.join(',')}]`;
    });
    await knex.raw(
      `update chunk_vectors v set pgv = u.pgv::${schema}.vector
       from unnest(?::bigint[], ?::text[], ?::bytea[], ?::text[]) as u(collection_id, model, text_sha, pgv)
       where v.collection_id = u.collection_id and v.model = u.model and v.text_sha = u.text_sha`,
      [
        rows.map((r) => r.collection_id),
        rows.map((r) => r.model),
        rows.map((r) => r.text_sha),
        texts,
      ],
    );
    const last = rows.at(-1)!;
    after = [last.collection_id, last.model, last.text_sha];
  }
  const dims = await knex.raw<{ rows: { dims: number }[] }>(
    `select distinct dims from chunk_vectors where dims <= ${HNSW_MAX_DIMS}`,
  );
  for (const { dims: count } of dims.rows) {
    await knex.raw(
      `create index chunk_vectors_pgv_${count} on chunk_vectors
         using hnsw ((pgv::${schema}.vector(${count})) ${schema}.vector_cosine_ops)
         where dims = ${count}`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  const { rows } = await knex.raw<{ rows: unknown[] }>(
    `select 1 from information_schema.columns
     where table_schema = current_schema() and table_name = 'chunk_vectors' and column_name = 'pgv'`,
  );
  if (rows.length === 0) return;
  await knex.raw('drop index if exists chunks_text_sha');
  // Its HNSW indexes go with the column.
  await knex.raw('alter table chunk_vectors drop column pgv');
}
