/**
 * A bot's WhatsApp message templates (docs/outbound.md), as last synced from its WhatsApp Business
 * Account: one row per channel, name and language, with Meta's category, review status and
 * components. Sending one checks its parameters against these components first.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('whatsapp_templates', (t) => {
    t.uuid('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('language').notNullable();
    t.text('category').notNullable().comment('MARKETING, UTILITY or AUTHENTICATION');
    t.text('status').notNullable().comment('APPROVED, PENDING, REJECTED, PAUSED, DISABLED');
    t.jsonb('components').notNullable();
    t.timestamp('synced_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['channel_id', 'name', 'language']);
    t.index(['app_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('whatsapp_templates');
}
