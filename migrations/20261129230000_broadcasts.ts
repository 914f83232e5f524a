/**
 * Broadcasts (docs/outbound.md): one message or template to an audience of a bot's users on one
 * channel, sent by `channel` as a resumable job. The audience is fixed when the broadcast is made:
 * one `broadcast_recipients` row per user, with the values its placeholders take, whose `state`
 * moves queued → picked → sending → sent | failed | unknown, or to skipped. A run picks a row
 * (`run_id`), waits for its pace, and marks it `sending` in its own commit just before the call,
 * only if the row is still its own: a run that died leaves `picked` rows (never called: queued
 * again) and at most its calls under way `sending`, which the next run settles from the
 * transcript (`unknown` when it has no row): never sent twice.
 *
 * A user who asked to hear no more (a stop word, or a Telegram user who blocked the bot) has
 * `conversations.opted_out_at` set; broadcasts skip them.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (t) => {
    t.timestamp('opted_out_at', { useTz: true }).comment('the user asked for no broadcasts');
  });
  await knex.schema.createTable('broadcasts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.uuid('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('status').notNullable().comment('scheduled, running, paused, cancelled, finished');
    t.jsonb('audience').notNullable().comment('the audience as asked for');
    t.jsonb('message').notNullable().comment('the message as asked for, with its placeholders');
    t.jsonb('internal').notNullable().comment('the message as checked, with its placeholders');
    t.integer('total').notNullable().comment('recipients, skipped ones included');
    t.text('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('start_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true });
    t.timestamp('ended_at', { useTz: true });
    t.uuid('run_id').comment('the run that holds it: an earlier run picks no more');
    t.index(['app_id', 'created_at']);
  });
  await knex.raw(
    `alter table broadcasts add constraint broadcasts_status_check
     check (status in ('scheduled', 'running', 'paused', 'cancelled', 'finished'))`,
  );
  await knex.schema.createTable('broadcast_recipients', (t) => {
    t.uuid('broadcast_id').notNullable().references('broadcasts.id').onDelete('CASCADE');
    t.integer('seq').notNullable();
    t.uuid('conversation_id').references('conversations.id').onDelete('SET NULL');
    t.text('chat_id').notNullable();
    t.jsonb('values').notNullable().defaultTo('{}').comment("the placeholders' values");
    t.text('state').notNullable();
    t.uuid('run_id');
    t.text('reason').comment('why skipped, failed or unknown');
    t.text('platform_message_id');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['broadcast_id', 'seq']);
  });
  await knex.raw(
    `alter table broadcast_recipients add constraint broadcast_recipients_state_check
     check (state in ('queued', 'picked', 'sending', 'sent', 'failed', 'skipped', 'unknown'))`,
  );
  // The runner's next rows, and the counts by state.
  await knex.raw(
    `create index broadcast_recipients_queued on broadcast_recipients (broadcast_id, seq)
     where state in ('queued', 'picked', 'sending')`,
  );
  await knex.raw(
    'create index broadcast_recipients_state on broadcast_recipients (broadcast_id, state)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('broadcast_recipients');
  await knex.schema.dropTable('broadcasts');
  await knex.schema.alterTable('conversations', (t) => {
    t.dropColumn('opted_out_at');
  });
}
