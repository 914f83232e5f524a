/**
 * The console's test chats (docs/console.md, "Test chat"): a `console` channel per bot, made when
 * its first test chat starts, whose conversations are an operator's tries and never a user's; and
 * one row per test chat with the flow it runs, copied when it started (the draft as saved then, or
 * a version), so a test conversation runs one flow from start to end whatever is saved or
 * published meanwhile.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table channels drop constraint channels_type_check');
  await knex.raw(
    `alter table channels add constraint channels_type_check check (type in ('telegram', 'whatsapp', 'web', 'console'))`,
  );
  await knex.raw(
    `create unique index channels_one_console_per_bot on channels (app_id) where type = 'console'`,
  );
  await knex.schema.createTable('test_chats', (t) => {
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.text('chat_id').notNullable().comment("the console channel's chat: t_<random>");
    t.jsonb('flow').notNullable().comment('the flow this chat runs, copied when it started');
    t.jsonb('source')
      .notNullable()
      .comment('where the flow came from: {"draft": <revision>} or {"version": <n>}');
    t.text('created_by').notNullable().comment('the actor who started it');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['app_id', 'chat_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('test_chats');
  await knex.raw('drop index channels_one_console_per_bot');
  await knex.raw(`delete from channels where type = 'console'`);
  await knex.raw('alter table channels drop constraint channels_type_check');
  await knex.raw(
    `alter table channels add constraint channels_type_check check (type in ('telegram', 'whatsapp', 'web'))`,
  );
}
