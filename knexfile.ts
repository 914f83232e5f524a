/**
 * Knex CLI configuration (`./scripts/upgrade-db.sh`, `./scripts/create-migration.sh`). The
 * database comes from `DATABASE_URL`, as for the components; `DATABASE_SCHEMA` optionally picks a
 * schema (tests migrate into their own).
 */
import type { Knex } from 'knex';

const schema = process.env.DATABASE_SCHEMA || undefined;

const config: Knex.Config = {
  client: 'pg',
  connection: process.env.DATABASE_URL || 'postgres://postgres:postgres@localhost:5432/botwire',
  pool: { min: 0, max: 2 },
  ...(schema ? { searchPath: [schema] } : {}),
  migrations: {
    directory: './migrations',
    extension: 'ts',
    loadExtensions: ['.ts'],
    tableName: 'knex_migrations',
    ...(schema ? { schemaName: schema } : {}),
    stub: './scripts/lib/migration-stub.ts',
  },
};

export default config;
