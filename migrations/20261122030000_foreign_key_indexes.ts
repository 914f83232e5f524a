/**
 * Indexes for the foreign keys that deletes cascade through: without them, deleting a bot or a
 * user scans conversation_state or conversations.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversation_state', (t) => t.index(['app_id']));
  await knex.schema.alterTable('conversations', (t) => t.index(['user_pid']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (t) => t.dropIndex(['user_pid']));
  await knex.schema.alterTable('conversation_state', (t) => t.dropIndex(['app_id']));
}
