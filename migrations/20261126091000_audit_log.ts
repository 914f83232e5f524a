/**
 * The audit log (docs/audit.md): one row per successful change made through the admin API or the
 * console, written by the admin router's audit middleware (src/api/audit/trail.ts). Rows are
 * append-only; the api's retention job deletes those older than AUDIT_RETENTION_DAYS.
 *
 * `account_id` has no foreign key on purpose: operator accounts are another table's business, and
 * an audit row must outlive the account it names (a deleted account's changes stay on record).
 * `app_id` has none either: the row of a deleted bot's changes is kept too.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id').primary().comment('newest first = id descending; the paging cursor');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('actor').notNullable().comment('"admin-key", "console", "account:<email>", ...');
    t.uuid('account_id').comment('the operator account, null for the admin key (no FK)');
    t.text('address').notNullable().comment('peer address of the TCP connection');
    t.text('action').notNullable().comment('e.g. bot.update, flow.publish (docs/audit.md)');
    t.text('target_type').notNullable();
    t.text('target_id');
    t.uuid('app_id').comment('the bot the change concerns, if any (no FK: kept after deletion)');
    t.jsonb('summary').notNullable().defaultTo('{}').comment('{before?, after?}, secrets removed');
  });
  // Each filter of GET /v2/audit walks its index newest first; `at` also serves retention.
  await knex.raw('create index audit_log_actor_id on audit_log (actor, id desc)');
  await knex.raw('create index audit_log_action_id on audit_log (action, id desc)');
  await knex.raw('create index audit_log_app_id_id on audit_log (app_id, id desc)');
  await knex.raw('create index audit_log_at on audit_log (at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_log');
}
