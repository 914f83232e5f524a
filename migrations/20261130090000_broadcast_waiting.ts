/**
 * A broadcast that reached its WhatsApp number's messaging limit (docs/outbound.md, "The daily
 * messaging limit") waits for room: `waiting_until` says until when; a run that takes it clears it.
 * `start_name` names the broadcast's current start (its job): a job of an earlier start (one left
 * delayed by a wait, then the broadcast paused and resumed) takes nothing.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('broadcasts', (t) => {
    t.timestamp('waiting_until', { useTz: true }).comment(
      "waits for the number's messaging limit until then",
    );
    t.text('start_name').comment('the current start: only its job runs the broadcast');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('broadcasts', (t) => {
    t.dropColumn('waiting_until');
    t.dropColumn('start_name');
  });
}
