/**
 * Exactly-once turns for `flow`: the state row remembers the ids of the turns it has applied and
 * the messages the last one produced, so a redelivered turn changes nothing and re-publishes the
 * same messages (downstream sends each once).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversation_state', (t) => {
    t.jsonb('recent_turns')
      .notNullable()
      .defaultTo('[]')
      .comment('ids of the last turns applied, newest last');
    t.jsonb('outbox').comment('what the last applied turn published, for a redelivery of it');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversation_state', (t) => {
    t.dropColumn('outbox');
    t.dropColumn('recent_turns');
  });
}
