/**
 * Messages the bot writes first (`POST /v2/bots/<app_id>/messages`, docs/outbound.md): each
 * request's idempotency key, kept so that the same key sends once and answers the first result
 * however late it comes again, with a hash of the request (another request under the same key is
 * refused), the message as checked and the turn id channel sends it under (its calls are recorded
 * once per turn): a repeat publishes that message again, unchecked, in case the first publish
 * failed. Kept as long as their conversation.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outbound_sends', (t) => {
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.text('idempotency_key').notNullable();
    t.text('request_hash').notNullable().comment('sha256 of the recipient and the message');
    t.uuid('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
    t.text('turn_id').notNullable();
    t.jsonb('message').notNullable().comment('the internal message, as checked when claimed');
    t.text('sent_by').notNullable().comment('the actor that asked');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['app_id', 'idempotency_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('outbound_sends');
}
