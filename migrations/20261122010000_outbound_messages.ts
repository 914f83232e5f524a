/**
 * Outbound sends, once each: every platform call of a bot turn is a `messages` row keyed by
 * (conversation, turn, seq), so a redelivered turn skips what was already sent. Delivery statuses
 * from the platform update the row found by its platform message id.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.text('seq').comment('outbound: <message index>.<call index> within the turn');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['platform_message_id']);
  });
  await knex.raw(
    `create unique index messages_outbound_once on messages (conversation_id, turn_id, seq) where direction = 'out'`,
  );
  await knex.raw(
    `alter table messages add constraint messages_status_check check (status in ('received', 'sending', 'sent', 'delivered', 'read', 'failed'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table messages drop constraint if exists messages_status_check');
  await knex.raw('drop index if exists messages_outbound_once');
  await knex.schema.alterTable('messages', (t) => {
    t.dropIndex(['platform_message_id']);
    t.dropColumn('updated_at');
    t.dropColumn('seq');
  });
}
