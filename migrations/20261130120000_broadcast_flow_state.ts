/**
 * Where a broadcast's answers go (docs/outbound.md, "The answer goes to a state"): the state of
 * the bot's flow each recipient's conversation waits at once the message is sent to them.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('broadcasts', (t) => {
    t.text('flow_state').comment("the flow state recipients' answers go to; null: where they are");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('broadcasts', (t) => {
    t.dropColumn('flow_state');
  });
}
