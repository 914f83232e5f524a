/**
 * `conversation_state` is rewritten on every turn. Pages left a third free keep each new row
 * version on its old row's page, so the update is HOT: no new entries in the table's two
 * indexes, and the old version is pruned from the page without VACUUM. Full pages sent about a
 * third of the updates to another page, with an insert into both indexes each
 * (bench/pipeline/RESULTS.md, 2026-11-24). Applies to pages written after the migration.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table conversation_state set (fillfactor = 70)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table conversation_state reset (fillfactor)');
}
