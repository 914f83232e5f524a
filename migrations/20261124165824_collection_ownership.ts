/**
 * Which bots may read a collection: its owner (`owner_app_id`, a bot; null for none) and, when
 * `shared`, every bot. Collections that exist now become shared, so flows that answer from them
 * keep working; a collection created from now on is shared with no bot and owned by none until
 * an operator sets it (`PATCH /v2/collections/<name>`). A bot's deletion leaves its collections
 * ownerless (readable by no bot unless shared). See docs/knowledge.md.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('collections', (t) => {
    t.text('owner_app_id')
      .references('bots.app_id')
      .onDelete('SET NULL')
      .comment('the bot that may read the collection; null: none (unless shared)');
    t.boolean('shared').notNullable().defaultTo(true).comment('every bot may read the collection');
    t.index(['owner_app_id']);
  });
  // The default above made the existing rows shared; new ones are not.
  await knex.raw('alter table collections alter column shared set default false');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('collections', (t) => {
    t.dropIndex(['owner_app_id']);
    t.dropColumn('shared');
    t.dropColumn('owner_app_id');
  });
}
