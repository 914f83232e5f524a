/**
 * Analytics rollups (docs/analytics.md): counters per bot and day, kept as turns happen, in the
 * same statement that stores the turn's conversation state (so a turn is counted exactly when it
 * is applied, once). Rows are keyed by what a page may filter on: the day (UTC), the channel
 * type, the conversation's language ('' when unknown) and the flow version (0 for none).
 * `analytics_users` holds each user's (conversation's) first and latest day, so a user is counted
 * active once a day and the users of a range ending today are one indexed count; retention
 * (ANALYTICS_RETENTION_DAYS) deletes old days and users not seen since.
 */
import type { Knex } from 'knex';

const KEY = ['app_id', 'day', 'channel_type', 'language', 'flow_version'];

function keyColumns(t: Knex.CreateTableBuilder): void {
  t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
  t.date('day').notNullable().comment('UTC');
  t.text('channel_type').notNullable();
  t.text('language').notNullable().comment("the conversation's language; '' when unknown");
  t.integer('flow_version').notNullable().comment('the published version the turn ran; 0 none');
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('analytics_days', (t) => {
    keyColumns(t);
    for (const [name, comment] of [
      ['conversations', 'flows started: a first turn, or a turn after an end or a reset'],
      ['new_users', "conversations' first turns ever"],
      ['active_users', 'conversations with a turn that day, each once a day'],
      ['messages_in', 'user messages and button presses the flow handled'],
      ['messages_out', "the bot's messages"],
      ['completed', 'flows that reached an end'],
      ['reasks', 'answers a wait did not accept, asked again'],
      ['fallbacks', 'waits that gave up (on_fail) after their retries'],
      ['handoffs', 'handoffs to a person the flow started'],
      ['unanswered', 'knowledge questions with no relevant passage'],
    ] as const) {
      t.integer(name).notNullable().defaultTo(0).comment(comment);
    }
    t.primary(KEY);
  });
  await knex.schema.createTable('analytics_state_days', (t) => {
    keyColumns(t);
    t.text('state').notNullable();
    for (const [name, comment] of [
      ['entered', 'times the state was entered'],
      ['left_forward', 'times a conversation went on from it (next, a transition, on_fail)'],
      ['ended', 'times a conversation ended in it'],
      ['reasks', 'answers its wait did not accept, asked again'],
      ['fallbacks', 'times its wait gave up (on_fail)'],
      ['handoffs', 'handoffs to a person started in it'],
    ] as const) {
      t.integer(name).notNullable().defaultTo(0).comment(comment);
    }
    t.primary([...KEY, 'state']);
  });
  await knex.schema.createTable('analytics_users', (t) => {
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.uuid('conversation_id').notNullable();
    t.text('channel_type').notNullable();
    t.date('first_day').notNullable().comment('UTC day of its first counted turn');
    t.date('last_day').notNullable().comment('UTC day of its latest counted turn');
    t.primary(['app_id', 'conversation_id']);
    // Users active since a day (a range ending today): a count over this index alone.
    t.index(['app_id', 'last_day']);
    // Retention deletes by the last day alone.
    t.index(['last_day']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('analytics_users');
  await knex.schema.dropTable('analytics_state_days');
  await knex.schema.dropTable('analytics_days');
}
