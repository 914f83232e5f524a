/**
 * Knex CLI configuration (`./scripts/upgrade-db.sh`, `./scripts/create-migration.sh`, and compiled
 * as `dist/knexfile.js`, the image's `migrate`). The database comes from `DATABASE_URL`, as for the
 * components; `DATABASE_SCHEMA` optionally picks a schema (tests migrate into their own). The
 * migrations come from `src/shared/migrations.ts`, named the same from sources and compiled;
 * `migrate:make` writes into `./migrations` (knex's default, from the folder of this file).
 */
import type { Knex } from 'knex';
import { migrationSource } from './src/shared/migrations.ts';

const schema = process.env.DATABASE_SCHEMA || undefined;

const config: Knex.Config = {
  client: 'pg',
  connection: process.env.DATABASE_URL || 'postgres://postgres:postgres@localhost:5432/botwire',
  pool: { min: 0, max: 2 },
  ...(schema ? { searchPath: [schema] } : {}),
  migrations: {
    migrationSource,
    extension: 'ts',
    tableName: 'knex_migrations',
    ...(schema ? { schemaName: schema } : {}),
    stub: './scripts/lib/migration-stub.ts',
  },
};

export default config;
