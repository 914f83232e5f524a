/**
 * The project's database migrations as knex runs them (`knexfile.ts`, the tests' schemas). Each is
 * named in `knex_migrations` by its TypeScript file (`20261122000000_core_tables.ts`) whether it
 * runs from that source under tsx or compiled (`dist/migrations/*.js`), so a database migrated by
 * either form is current for the other.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { COMPILED } from './runtime-layout.ts';

/** The migrations beside this code: `migrations/` from sources, `dist/migrations/` compiled. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

const EXTENSION = COMPILED ? '.js' : '.ts';

/** One migration: `file` its name (what knex records, and its CLI lists), `path` what runs. */
interface Migration {
  file: string;
  path: string;
}

export const migrationSource: Knex.MigrationSource<Migration> = {
  async getMigrations() {
    return (await readdir(MIGRATIONS_DIR))
      .filter((name) => name.endsWith(EXTENSION))
      .sort()
      .map((name) => ({
        file: `${name.slice(0, -EXTENSION.length)}.ts`,
        path: join(MIGRATIONS_DIR, name),
      }));
  },
  getMigrationName(migration) {
    return migration.file;
  },
  getMigration(migration) {
    return import(pathToFileURL(migration.path).href) as Promise<Knex.Migration>;
  },
};
