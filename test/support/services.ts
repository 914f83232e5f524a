/**
 * Real Redis and Postgres for tests, isolated per test: a unique stream prefix, and a schema (or
 * database) of its own, migrated with the project's migrations and dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createDb, type Knex } from '../../src/shared/db.ts';
import { migrationSource } from '../../src/shared/migrations.ts';
import { topicKeys, type Topic } from '../../src/shared/bus/topics.ts';
import { createRedis, scanEveryMaster, type Redis } from '../../src/shared/redis.ts';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@localhost:5432/botwire_test';
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export { MIGRATIONS_DIR } from '../../src/shared/migrations.ts';

/** A short random name part: lower-case letters and digits. */
export function uniqueName(label: string): string {
  return `${label}_${randomBytes(5).toString('hex')}`;
}

/** A stream prefix no other test uses. */
export function uniquePrefix(): string {
  return `test:${randomBytes(5).toString('hex')}`;
}

/** A connection to the test Redis, or to `url` (a single server or a cluster). */
export function connectRedis(url = REDIS_URL): Redis {
  return createRedis(url, { name: 'botwire-test' });
}

/** Deletes every key under `prefix` (on every master of a cluster). */
export async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  // One key per command: a node's keys lie in many slots, and DEL takes keys of one.
  await scanEveryMaster(redis, `${prefix}:*`, async (keys, node) => {
    await Promise.all(keys.map((key) => node.del(key)));
  });
}

/** A migrated schema of its own; `drop()` removes it and closes the pool. */
export interface TestSchema {
  db: Knex;
  schema: string;
  drop(): Promise<void>;
}

/** A migrated schema of its own in the database at `databaseUrl` (the shared test database by default). */
export async function createTestSchema(databaseUrl = DATABASE_URL): Promise<TestSchema> {
  const schema = uniqueName('t');
  const admin = createDb(databaseUrl, { poolMax: 1 });
  await admin.raw('create schema ??', [schema]);
  await admin.destroy();
  const db = createDb(databaseUrl, { poolMax: 4, searchPath: schema });
  await db.migrate.latest({
    migrationSource,
    schemaName: schema,
  });
  return {
    db,
    schema,
    async drop() {
      await db.raw('drop schema ?? cascade', [schema]);
      await db.destroy();
    },
  };
}

/** Runs `work`; resolves to its result and the SQL of every query `db` ran meanwhile. */
export async function withStatements<T>(
  db: Knex,
  work: () => Promise<T>,
): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const onQuery = (query: { sql: string }) => statements.push(query.sql);
  db.on('query', onQuery);
  try {
    return { result: await work(), statements };
  } finally {
    db.off('query', onQuery);
  }
}

/**
 * Polls `check` until it returns a truthy value or `timeoutMs` passes. `what` names the condition
 * in the error; a function is asked when the wait fails, so it can say what was seen by then.
 */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  {
    timeoutMs = 10_000,
    intervalMs = 25,
    what = 'condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string | (() => string) } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      const named = typeof what === 'function' ? what() : what;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${named}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Partitions per topic in tests that use the default configuration. */
export const DEFAULT_PARTITIONS = 8;

/** Every entry of a topic across its partitions, oldest first: `{ stream, id, data }`. */
export async function topicEntries(
  redis: Redis,
  prefix: string,
  topic: Topic,
  partitions = DEFAULT_PARTITIONS,
): Promise<{ stream: string; id: string; data: string }[]> {
  const all: { stream: string; id: string; data: string }[] = [];
  for (const stream of topicKeys(prefix, topic, partitions).partitions) {
    for (const [id, fields] of await redis.xrange(stream, '-', '+')) {
      all.push({ stream, id, data: fields[fields.indexOf('data') + 1] ?? '' });
    }
  }
  const order = (id: string): [bigint, bigint] => {
    const [ms = '0', seq = '0'] = id.split('-');
    return [BigInt(ms), BigInt(seq)];
  };
  return all.sort((a, b) => {
    const [am, as] = order(a.id);
    const [bm, bs] = order(b.id);
    return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
  });
}

/** Deletes a topic's partition streams (not its other keys). */
export async function clearTopic(
  redis: Redis,
  prefix: string,
  topic: Topic,
  partitions = DEFAULT_PARTITIONS,
): Promise<void> {
  // One DEL per partition: on a cluster each partition's stream lies in a slot of its own.
  await Promise.all(topicKeys(prefix, topic, partitions).partitions.map((key) => redis.del(key)));
}
/** A database URL (the shared test database by default) whose connections work in `schema` (pg passes `options` to the server). */
export function urlWithSchema(schema: string, databaseUrl = DATABASE_URL): string {
  return `${databaseUrl}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}
