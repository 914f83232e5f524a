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

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table chunks rename to chunks_flat;
    alter table chunks_flat rename constraint chunks_pkey to chunks_flat_pkey;
    alter table chunks_flat rename constraint chunks_collection_id_generation_file_ordinal_unique
      to chunks_flat_unique;
    alter table chunks_flat rename constraint chunks_collection_id_foreign to chunks_flat_foreign;
    alter index chunks_tsv rename to chunks_flat_tsv;
    alter sequence chunks_id_seq owned by none;

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
      constraint chunks_pkey primary key (collection_id, id),
      constraint chunks_collection_id_generation_file_ordinal_unique
        unique (collection_id, generation, file, ordinal),
      constraint chunks_collection_id_foreign foreign key (collection_id)
        references collections (id) on delete cascade
    ) partition by list (collection_id);
    create index chunks_tsv on chunks using gin (tsv);
    comment on column chunks.ordinal is 'position within the file';
    alter sequence chunks_id_seq owned by chunks.id;

    create function chunks_partition_for_collection() returns trigger language plpgsql as $$
    declare
      part text := 'chunks_' || new.id;
    begin
      -- Qualified by the schema of the collections table, whatever the session's search_path.
      execute format('create table %I.%I (like %I.chunks including defaults)',
                     tg_table_schema, part, tg_table_schema);
      execute format('alter table %I.%I add constraint %I check (collection_id = %s)',
                     tg_table_schema, part, part || '_collection', new.id);
      execute format('alter table %I.chunks attach partition %I.%I for values in (%s)',
                     tg_table_schema, tg_table_schema, part, new.id);
      return null;
    end
    $$;
    create trigger collections_chunks_partition after insert on collections
      for each row execute function chunks_partition_for_collection();
  `);
  const collections = await knex<{ id: string }>('collections').select('id');
  for (const { id } of collections) {
    await knex.raw(
      `
      create table ?? (like chunks including defaults);
      alter table ?? add constraint ?? check (collection_id = ${Number(id)});
      alter table chunks attach partition ?? for values in (${Number(id)});
    `,
      [`chunks_${id}`, `chunks_${id}`, `chunks_${id}_collection`, `chunks_${id}`],
    );
  }
  await knex.raw(`
    insert into chunks (id, ${COLUMNS}) select id, ${COLUMNS} from chunks_flat;
    drop table chunks_flat;
  `);
  for (const { id } of collections) await knex.raw('analyze ??', [`chunks_${id}`]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger collections_chunks_partition on collections;
    drop function chunks_partition_for_collection();
    alter table chunks rename to chunks_parted;
    alter table chunks_parted rename constraint chunks_pkey to chunks_parted_pkey;
    alter table chunks_parted rename constraint chunks_collection_id_generation_file_ordinal_unique
      to chunks_parted_unique;
    alter table chunks_parted rename constraint chunks_collection_id_foreign to chunks_parted_foreign;
    alter index chunks_tsv rename to chunks_parted_tsv;
    alter sequence chunks_id_seq owned by none;

    create table chunks (
      id bigint not null default nextval('chunks_id_seq') primary key,
      collection_id bigint not null references collections (id) on delete cascade,
      generation bigint not null,
      file text not null,
      ordinal integer not null,
      page integer,
      sheet text,
      row_first integer,
      row_last integer,
      text text not null,
      tsv tsvector not null,
      constraint chunks_collection_id_generation_file_ordinal_unique
        unique (collection_id, generation, file, ordinal)
    );
    alter table chunks rename constraint chunks_collection_id_fkey to chunks_collection_id_foreign;
    create index chunks_tsv on chunks using gin (tsv);
    comment on column chunks.ordinal is 'position within the file';
    alter sequence chunks_id_seq owned by chunks.id;
    insert into chunks (id, ${COLUMNS}) select id, ${COLUMNS} from chunks_parted;
    drop table chunks_parted;
  `);
}
