/**
 * `chunks` partitioned by collection: each collection's chunks get a table of their own, with
 * their own GIN index and their own statistics. A search names its collection as a constant, so
 * Postgres reads that partition only and estimates from that collection's words alone; with one
 * table, a word common in another collection made the planner expect matches in a collection
 * that had none and scan the whole table (docs/knowledge.md, "Search").
 *
 * A collection's partition, `chunks_<collection id>`, is made by a trigger on `collections` in the
 * transaction that inserts the collection: created apart and then attached, which locks `chunks`
 * against other attaches only, never against its reads or writes. Attaching copies the foreign
 * key, which takes a SHARE ROW EXCLUSIVE lock on `collections`: inserting collections must take
 * that lock first (`ensureCollection` does), or two sessions creating collections at once
 * deadlock. Existing chunks are copied over and analysed.
 */
import type { Knex } from 'knex';

const COLUMNS = `collection_id, generation, file, ordinal, page, sheet, row_first, row_last, text, tsv`;

/** `create table chunks`, as both versions have it but for the primary key and the tail. */
function createChunks(primaryKey: string, tail: string): string {
  return `
    create table chunks (
      id bigint not null default nextval('chunks_id_seq'),
      collection_id bigint not null,
      generation bigint not null,
      file text not null,
      ordinal integer not null,
      page integer,
      sheet text,
      row_first integer,
      row_last integer,
      text text not null,
      tsv tsvector not null,
      constraint chunks_pkey primary key (${primaryKey}),
      constraint chunks_collection_id_generation_file_ordinal_unique
        unique (collection_id, generation, file, ordinal),
      constraint chunks_collection_id_foreign foreign key (collection_id)
        references collections (id) on delete cascade
    )${tail};
    create index chunks_tsv on chunks using gin (tsv);
    comment on column chunks.ordinal is 'position within the file';
    alter sequence chunks_id_seq owned by chunks.id;`;
}

/** Renames `chunks` and its constraint and index names out of the way, keeping its sequence. */
function setAside(as: string): string {
  return `
    alter table chunks rename to ${as};
    alter table ${as} rename constraint chunks_pkey to ${as}_pkey;
    alter table ${as} rename constraint chunks_collection_id_generation_file_ordinal_unique
      to ${as}_unique;
    alter table ${as} rename constraint chunks_collection_id_foreign to ${as}_foreign;
    alter index chunks_tsv rename to ${as}_tsv;
    alter sequence chunks_id_seq owned by none;`;
}

/** Copies the rows of the table set aside as `from` into the new `chunks`, then drops it. */
function copyFrom(from: string): string {
  return `
    insert into chunks (id, ${COLUMNS}) select id, ${COLUMNS} from ${from};
    drop table ${from};`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ${setAside('chunks_flat')}
    ${createChunks('collection_id, id', ' partition by list (collection_id)')}

    -- Makes the partition of one collection, qualified by the schema given, whatever the
    -- session's search_path.
    create function chunks_make_partition(schema_name text, collection bigint) returns void
    language plpgsql as $$
    declare
      part text := 'chunks_' || collection;
    begin
      execute format('create table %I.%I (like %I.chunks including defaults)',
                     schema_name, part, schema_name);
      execute format('alter table %I.%I add constraint %I check (collection_id = %s)',
                     schema_name, part, part || '_collection', collection);
      execute format('alter table %I.chunks attach partition %I.%I for values in (%s)',
                     schema_name, schema_name, part, collection);
    end
    $$;
    create function chunks_partition_for_collection() returns trigger language plpgsql as $$
    begin
      execute format('select %I.chunks_make_partition(%L, %s)',
                     tg_table_schema, tg_table_schema, new.id);
      return null;
    end
    $$;
    create trigger collections_chunks_partition after insert on collections
      for each row execute function chunks_partition_for_collection();

    select chunks_make_partition(current_schema(), id) from collections;
    ${copyFrom('chunks_flat')}
  `);
  const collections = await knex<{ id: string }>('collections').select('id');
  for (const { id } of collections) await knex.raw('analyze ??', [`chunks_${id}`]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger collections_chunks_partition on collections;
    drop function chunks_partition_for_collection();
    drop function chunks_make_partition(text, bigint);
    ${setAside('chunks_parted')}
    ${createChunks('id', '')}
    ${copyFrom('chunks_parted')}
  `);
}
