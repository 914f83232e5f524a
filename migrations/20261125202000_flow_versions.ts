/**
 * Flow versions: every published flow of a bot is an immutable numbered row of `flow_versions`;
 * `bots.flow_version` names the current one, and `bots.flow` keeps a copy of its flow, so the
 * flow component reads a bot as cheaply as before. One draft per bot in `flow_drafts`, saved even
 * when invalid. Existing bots get version 1 = their flow, current.
 *
 * A removed-state note (docs/flows.md, "Versions") is a `messages` row of `message_type` `note`
 * and `status` `note`: written by flow, never sent.
 */
import type { Knex } from 'knex';

const STATUSES = ['received', 'sending', 'sent', 'delivered', 'read', 'failed'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('flow_versions', (t) => {
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.integer('version').notNullable().comment('1, 2, ... per bot, in publishing order');
    t.jsonb('flow').notNullable();
    t.text('author').notNullable().comment('who published it: admin-key, console, ...');
    t.text('note');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['app_id', 'version']);
  });
  await knex.schema.createTable('flow_drafts', (t) => {
    t.text('app_id').primary().references('bots.app_id').onDelete('CASCADE');
    t.jsonb('flow').notNullable().comment('any JSON object: saved even when invalid');
    t.text('author').notNullable();
    t.integer('revision')
      .notNullable()
      .defaultTo(1)
      .comment('bumped on every save: a publish deletes only the draft it published');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.alterTable('bots', (t) => {
    t.integer('flow_version').comment(
      'the current version of flow_versions; bots.flow is its flow',
    );
  });
  await knex.raw(
    `insert into flow_versions (app_id, version, flow, author, note, created_at)
     select app_id, 1, flow, 'admin-key', 'the flow before versions', updated_at from bots`,
  );
  await knex.raw('update bots set flow_version = 1');
  await knex.raw('alter table messages drop constraint messages_status_check');
  await knex.raw(
    `alter table messages add constraint messages_status_check check (status in (${[...STATUSES, 'note'].map((s) => `'${s}'`).join(', ')}))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex('messages').where({ status: 'note' }).delete();
  await knex.raw('alter table messages drop constraint messages_status_check');
  await knex.raw(
    `alter table messages add constraint messages_status_check check (status in (${STATUSES.map((s) => `'${s}'`).join(', ')}))`,
  );
  await knex.schema.alterTable('bots', (t) => t.dropColumn('flow_version'));
  await knex.schema.dropTableIfExists('flow_drafts');
  await knex.schema.dropTableIfExists('flow_versions');
}
