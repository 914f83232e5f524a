/**
 * Who sent an outbound transcript row: null for the bot, the principal's actor for a person
 * (an agent's reply during a handoff, an agent's internal note).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.text('sent_by').comment('null: the bot; else the actor of the person who wrote it');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => t.dropColumn('sent_by'));
}
