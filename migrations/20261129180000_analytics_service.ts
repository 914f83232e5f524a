/**
 * Analytics of the service a bot's users got (docs/analytics.md), kept as things happen, each in
 * the statement that records the thing itself, so each is counted once:
 * - `analytics_timings`: durations as counts per log-scale bucket (`src/shared/analytics-timings.ts`)
 *   per bot, day (UTC), channel type and measure: the bot's response time (channel, with the
 *   reply's transcript row) and an agent's first reply to a handoff (api, with `first_reply_at`).
 * - `analytics_events`: counts per bot, day, channel type, event and code: a platform's refusal of
 *   a reply, by its code (channel, with the `failed` row), and a handoff's end by how it ended
 *   (flow, with the row's end).
 * Neither is kept per language or flow version. Retention deletes old days with the other rollups.
 */
import type { Knex } from 'knex';

function keyColumns(t: Knex.CreateTableBuilder): void {
  t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
  t.date('day').notNullable().comment('UTC');
  t.text('channel_type').notNullable();
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('analytics_timings', (t) => {
    keyColumns(t);
    t.text('measure').notNullable().comment('bot_response or agent_first_reply');
    t.smallint('bucket').notNullable().comment('floor(log1.1(ms)), 0 for under 1.1 ms');
    t.integer('count').notNullable();
    t.primary(['app_id', 'day', 'channel_type', 'measure', 'bucket']);
  });
  await knex.schema.createTable('analytics_events', (t) => {
    keyColumns(t);
    t.text('event').notNullable().comment('send_failed, or how a handoff ended');
    t.text('code').notNullable().defaultTo('').comment("send_failed: the platform's code");
    t.integer('count').notNullable();
    t.primary(['app_id', 'day', 'channel_type', 'event', 'code']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('analytics_events');
  await knex.schema.dropTable('analytics_timings');
}
