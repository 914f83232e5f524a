/**
 * How many times the platform answered "slow down" (429) to a broadcast recipient's call
 * (docs/outbound.md, "At most once"): past `MAX_SLOW_DOWNS` the recipient fails, so one user the
 * platform will not take a message for (WhatsApp's pair rate limit) cannot hold a broadcast open.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('broadcast_recipients', (t) => {
    t.smallint('slow_downs').notNullable().defaultTo(0).comment('429 answers to its call so far');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('broadcast_recipients', (t) => {
    t.dropColumn('slow_downs');
  });
}
