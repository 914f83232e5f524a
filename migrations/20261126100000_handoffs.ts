/**
 * Handoffs (docs/handoff.md): a conversation put in the hands of a person. One row per handoff;
 * at most one open (waiting or claimed) per conversation. `bots.handoff` holds the bot's handoff
 * settings: `{keywords?: string[], timeout_s?: number}`.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('handoffs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    // bots.app_id is text (core tables), not uuid.
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.uuid('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
    t.text('status').notNullable();
    t.text('queue');
    t.text('reason').notNullable().comment("'step' (a flow step) or 'keyword' (a bot keyword)");
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deadline_at', { useTz: true }).comment('no claim by then: the fallback runs');
    t.text('claimed_by').comment("the claiming principal's actor");
    t.uuid('claimed_account');
    t.timestamp('claimed_at', { useTz: true });
    t.timestamp('first_reply_at', { useTz: true });
    t.timestamp('ended_at', { useTz: true });
    t.text('ended_by');
    t.text('return_state');
    t.text('fallback_state');
    t.index(['conversation_id']);
    t.index(['app_id', 'status', 'created_at']);
  });
  await knex.raw(
    `alter table handoffs add constraint handoffs_status_check check (status in ('waiting', 'claimed', 'returned', 'closed', 'fallback'))`,
  );
  await knex.raw(
    `create unique index handoffs_one_open_per_conversation on handoffs (conversation_id) where status in ('waiting', 'claimed')`,
  );
  await knex.schema.alterTable('bots', (t) => {
    t.jsonb('handoff').notNullable().defaultTo('{}');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('bots', (t) => t.dropColumn('handoff'));
  await knex.schema.dropTableIfExists('handoffs');
}
