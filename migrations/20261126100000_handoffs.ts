/**
 * Handoffs (docs/handoff.md): a conversation taken over by a person. One row per handoff, written
 * by flow when a `handoff` step or a bot keyword starts it (in the transaction that saves the
 * conversation state), claimed and answered through the admin API, ended by flow (returned,
 * closed, or fallback when no agent claimed it before `deadline_at`). At most one open (waiting or
 * claimed) handoff per conversation. `bots.handoff` holds the bot's keywords and timeout.
 */
import type { Knex } from 'knex';

const STATUSES = ['waiting', 'claimed', 'returned', 'closed', 'fallback'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('handoffs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.uuid('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
    t.text('status').notNullable();
    t.text('queue').comment('the queue a handoff step named; null for keywords and steps without');
    t.text('reason').notNullable().comment("what started it: 'step' or 'keyword'");
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deadline_at', { useTz: true }).comment(
      'while waiting: when the timeout sweeper publishes the timeout (fallback)',
    );
    t.text('claimed_by').comment('the actor of the agent holding it');
    t.uuid('claimed_account');
    t.timestamp('claimed_at', { useTz: true });
    t.timestamp('first_reply_at', { useTz: true });
    t.timestamp('ended_at', { useTz: true });
    t.text('ended_by').comment('the source of the message that ended it (api actor, flow)');
    t.text('return_state').comment('the state the conversation resumed at (returned)');
    t.text('fallback_state').comment('the state a timeout enters');
    t.index(['app_id', 'status', 'created_at']);
    t.index(['conversation_id']);
  });
  await knex.raw(
    `alter table handoffs add constraint handoffs_status_check check (status in (${STATUSES.map((s) => `'${s}'`).join(', ')}))`,
  );
  await knex.raw(
    `create unique index handoffs_one_open on handoffs (conversation_id) where status in ('waiting', 'claimed')`,
  );
  // What the sweeper scans every few seconds: only waiting rows with a deadline.
  await knex.raw(
    `create index handoffs_deadline on handoffs (deadline_at) where status = 'waiting' and deadline_at is not null`,
  );
  await knex.schema.alterTable('bots', (t) => {
    t.jsonb('handoff')
      .notNullable()
      .defaultTo('{}')
      .comment('{keywords?: string[], timeout_s?: number}: docs/handoff.md');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('bots', (t) => {
    t.dropColumn('handoff');
  });
  await knex.schema.dropTable('handoffs');
}
