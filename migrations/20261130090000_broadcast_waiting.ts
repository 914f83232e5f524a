/**
 * A broadcast that reached its WhatsApp number's messaging limit (docs/outbound.md, "The daily
 * messaging limit") waits for room: `waiting_until` says until when; a run that takes it clears it.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('broadcasts', (t) => {
    t.timestamp('waiting_until', { useTz: true }).comment(
      "waits for the number's messaging limit until then",
    );
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('broadcasts', (t) => {
    t.dropColumn('waiting_until');
  });
}
