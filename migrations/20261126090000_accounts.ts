/**
 * Operator accounts (docs/accounts.md): people who sign in to the console or the admin API with a
 * role; the bots an agent is assigned to; personal API tokens; one-time invites. Secrets are never
 * stored: passwords as scrypt strings, tokens and invite links as their SHA-256 (they are 256-bit
 * random, so a fast digest is enough).
 */
import type { Knex } from 'knex';

const ROLES = "('owner', 'builder', 'agent', 'viewer')";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('email').notNullable().comment('as entered; unique without regard to case');
    t.text('name').notNullable();
    t.text('role').notNullable();
    t.text('password_hash').notNullable().comment('$scrypt$ln=..,r=..,p=..$salt$hash');
    t.timestamp('disabled_at', { useTz: true }).comment('set: no sign-in, sessions and tokens end');
    t.text('created_by').notNullable().comment('the actor who created it or sent its invite');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    `alter table accounts add constraint accounts_role_check check (role in ${ROLES})`,
  );
  await knex.raw('create unique index accounts_email_unique on accounts (lower(email))');

  await knex.schema.createTable('account_bots', (t) => {
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('app_id').notNullable().references('bots.app_id').onDelete('CASCADE');
    t.primary(['account_id', 'app_id']);
    t.index(['app_id']);
  });

  await knex.schema.createTable('api_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('role').notNullable().comment("at most the account's role when made");
    t.text('token_hash').notNullable().unique().comment('hex SHA-256 of the token');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['account_id']);
  });
  await knex.raw(
    `alter table api_tokens add constraint api_tokens_role_check check (role in ${ROLES})`,
  );

  await knex.schema.createTable('invites', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('token_hash').notNullable().unique().comment('hex SHA-256 of the link token');
    t.text('role').notNullable();
    t.text('email').comment('when set, the account is made with this email');
    t.specificType('bots', 'text[]').notNullable().defaultTo('{}').comment('for an agent');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.uuid('account_id').references('accounts.id').onDelete('SET NULL').comment('made by it');
    t.text('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table invites add constraint invites_role_check check (role in ${ROLES})`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('invites');
  await knex.schema.dropTableIfExists('api_tokens');
  await knex.schema.dropTableIfExists('account_bots');
  await knex.schema.dropTableIfExists('accounts');
}
