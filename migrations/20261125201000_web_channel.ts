/**
 * The `web` channel type (docs/web-channel.md): the type check allows it, and a bot has at most
 * one web channel, since the web routes name the bot and not the channel.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table channels drop constraint channels_type_check');
  await knex.raw(
    `alter table channels add constraint channels_type_check check (type in ('telegram', 'whatsapp', 'web'))`,
  );
  await knex.raw(
    `create unique index channels_one_web_per_bot on channels (app_id) where type = 'web'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index channels_one_web_per_bot');
  await knex.raw(`delete from channels where type = 'web'`);
  await knex.raw('alter table channels drop constraint channels_type_check');
  await knex.raw(
    `alter table channels add constraint channels_type_check check (type in ('telegram', 'whatsapp'))`,
  );
}
