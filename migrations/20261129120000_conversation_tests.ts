/**
 * Conversation tests (docs/flows.md, "Conversation tests"): a bot's named scripts of user inputs
 * with expectations, run against a draft or a version and before every publish. They go with
 * their bot.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bot_tests', (t) => {
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.jsonb('test').notNullable().comment('schemas/http/conversation-test.json, its name included');
    t.text('updated_by').notNullable().comment('the actor who saved it last');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['app_id', 'name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bot_tests');
}
