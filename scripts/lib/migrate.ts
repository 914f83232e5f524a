/**
 * Migrates the database of DATABASE_URL (DATABASE_SCHEMA picks a schema) to the latest version,
 * one process at a time: behind the image's `migrate` (every pod's init container runs it,
 * deploy/k8s) and ./scripts/upgrade-db.sh.
 *
 * knex's own lock does not cover a database that has no migration tables yet: each process finds
 * no lock table, and no lock row, so several create them at once; two such rows leave every run,
 * then and later, refused as "already locked" with nothing migrated. So a process first takes a
 * Postgres advisory lock of its own, keyed by the schema, on a connection of its own, and only
 * then runs knex: a second process waits, then finds nothing left to do. The lock is the
 * session's, so a process that dies gives it back.
 *
 * Prints knex's lines ("Batch N run: M migrations", "Already up to date"). Exit codes: 0 migrated
 * or up to date, 1 a migration or the connection failed (the error on stderr).
 */
import knex from 'knex';
import pg from 'pg';
import config from '../../knexfile.ts';

/** The advisory lock's name, per schema: migrations of other schemas do not wait for it. */
export function migrationLockName(schema: string | undefined): string {
  return `botwire migrate ${schema ?? 'public'}`;
}

/**
 * Runs the migrations of knexfile.ts (its database and schema) under the advisory lock; resolves
 * to the line knex's CLI would print.
 */
export async function migrate(): Promise<string> {
  const schema = config.migrations?.schemaName;
  if (typeof config.connection !== 'string') throw new Error('knexfile.ts must name a URL');
  const lock = new pg.Client({ connectionString: config.connection });
  await lock.connect();
  const db = knex(config);
  try {
    await lock.query('select pg_advisory_lock(hashtext($1))', [migrationLockName(schema)]);
    const [batch, log] = (await db.migrate.latest()) as [number, string[]];
    return log.length === 0 ? 'Already up to date' : `Batch ${batch} run: ${log.length} migrations`;
  } finally {
    await db.destroy();
    // Ending the session gives the lock back.
    await lock.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  migrate().then(
    (line) => {
      console.log(line);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
