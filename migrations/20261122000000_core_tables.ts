/**
 * The core tables: users, bots and their channels, conversations, their messages (both
 * directions, for transcripts) and the flow's stored conversation state. See docs/data-model.md.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.text('pid').primary();
    t.text('first_name');
    t.text('last_name');
    t.text('channel_type');
    t.text('external_id').comment('the platform user id (Telegram user id, WhatsApp wa_id)');
    t.text('language').comment('language the user chose, BCP 47');
    t.jsonb('profile').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('bots', (t) => {
    t.text('app_id').primary();
    t.text('name').notNullable();
    t.jsonb('flow').notNullable();
    t.text('language').notNullable().defaultTo('en').comment("the bot's own language, BCP 47");
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('channels', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('external_id').comment(
      'what platform callbacks are matched by: WhatsApp phone_number_id',
    );
    t.text('credentials').notNullable().comment('AES-256-GCM sealed JSON of the channel details');
    t.timestamp('webhook_registered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['app_id']);
  });
  await knex.raw(
    `alter table channels add constraint channels_type_check check (type in ('telegram', 'whatsapp'))`,
  );
  await knex.raw(
    'create unique index channels_type_external_id_unique on channels (type, external_id) where external_id is not null',
  );

  await knex.schema.createTable('conversations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.uuid('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.text('user_pid').notNullable().references('users.pid').onDelete('CASCADE');
    t.text('chat_id').notNullable().comment('platform chat id (Telegram chat id, WhatsApp wa_id)');
    t.text('language');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_message_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['channel_id', 'chat_id']);
    t.index(['app_id', 'last_message_at']);
  });

  await knex.schema.createTable('messages', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
    t.text('direction').notNullable();
    t.text('turn_id');
    t.text('platform_message_id');
    t.text('message_type').notNullable();
    t.jsonb('body').notNullable();
    t.text('status').notNullable().defaultTo('received');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['conversation_id', 'id']);
  });
  await knex.raw(
    `alter table messages add constraint messages_direction_check check (direction in ('in', 'out'))`,
  );
  await knex.raw(
    'create unique index messages_platform_id_unique on messages (conversation_id, direction, platform_message_id) where platform_message_id is not null',
  );

  await knex.schema.createTable('conversation_state', (t) => {
    t.uuid('conversation_id').primary().references('conversations.id').onDelete('CASCADE');
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.jsonb('state').notNullable().defaultTo('{}');
    t.integer('version')
      .notNullable()
      .defaultTo(0)
      .comment('optimistic concurrency: bumped on every write');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'conversation_state',
    'messages',
    'conversations',
    'channels',
    'bots',
    'users',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
