/**
 * What every bench sets up the same way: its settings from the environment, the cleanup steps, a
 * scratch database (created, migrated, dropped) and Redis key prefix (deleted), and the frame that
 * runs `main` and cleans up on success, failure or Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { createDb, type Knex } from '../../src/shared/db.ts';
import { createRedis, isCluster, mastersOf, type Redis } from '../../src/shared/redis.ts';
import { productionNodeOptions, type ComponentName } from '../../test/support/components.ts';
import { childEnv, runCommand } from '../edge/processes.ts';

/** The repository root: the children run there. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The integer in env `name`, `fallback` when unset or empty; throws when not an integer >= `min`. */
export function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

/**
 * BENCH_REDIS_URL, BENCH_DATABASE_URL, BENCH_PROF and BENCH_NODE_ARGS, which every bench reads
 * alike: the Node arguments of a child are those that make it write a CPU profile into BENCH_PROF
 * (none without it), then BENCH_NODE_ARGS split at spaces (`--trace-gc`, say). A botwire
 * component's (`componentNodeArgs(component)`) start with the flags production gives it, which
 * BENCH_NODE_ARGS can override (`--max-semi-space-size=16`: V8's default); a baseline (the grammY
 * bot, bare Koa) runs with Node's defaults, as its authors would run it.
 */
export function commonOptions(): {
  redisUrl: string;
  adminDatabaseUrl: string;
  profileDir: string | undefined;
  nodeArgs: string[];
  componentNodeArgs: (component: ComponentName) => string[];
} {
  const profileDir = process.env.BENCH_PROF || undefined;
  const nodeArgs = [
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  return {
    redisUrl: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379',
    adminDatabaseUrl:
      process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    profileDir,
    nodeArgs,
    componentNodeArgs: (component) => [...productionNodeOptions(component), ...nodeArgs],
  };
}

let built = false;

/**
 * The entry that starts `component` as `scripts/run.sh` and the image do: compiled
 * (`dist/src/<component>/main.js`), built first when missing or stale (once per bench).
 */
export function componentEntry(component: string): string {
  if (!built) {
    execFileSync('bash', ['-c', '. scripts/lib/common.sh && bw_ensure_build'], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    built = true;
  }
  return `dist/src/${component}/main.js`;
}

/**
 * A baseline program of a bench (`bench/pipeline/grammy-bot.ts`, `bench/edge/baseline.ts`)
 * compiled to JavaScript as a team would deploy it (esbuild, its packages left in node_modules),
 * so that it runs without a loader like the components it is compared with. Returns the path to
 * start, relative to the root.
 */
export function compiledScript(entry: string): string {
  const out = join(
    'node_modules',
    '.cache',
    'botwire-bench',
    basename(entry).replace(/\.ts$/, '.mjs'),
  );
  buildSync({
    entryPoints: [join(ROOT, entry)],
    outfile: join(ROOT, out),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  return out;
}

/** Topic partitions in every bench: the default, so that up to 8 processes of a component share the load. */
export const BENCH_PARTITIONS = 8;

/**
 * The consumer settings every bench's components run with, but for `CONSUMER_CONCURRENCY` (by
 * default `BENCH_CONCURRENCY_DEFAULT`) and `CONSUMER_LINGER_MS`, which bench/pipeline varies.
 */
export const BENCH_CONSUMER_SETTINGS = {
  TOPIC_PARTITIONS: String(BENCH_PARTITIONS),
  CONSUMER_BATCH_SIZE: '64',
  // A blocked XREADGROUP returns as soon as an entry arrives, so this bounds only how long an
  // idle loop sleeps; it does not add latency.
  CONSUMER_BLOCK_MS: '1000',
  // Leases are renewed every third of this: 3 s lets the partitions settle on their processes
  // about a second after start, at one small Lua call per second per process.
  CONSUMER_LEASE_MS: '3000',
} as const;

/**
 * Handlers mostly wait on Postgres and Redis; more of them at once keeps a backlog short after a
 * stall (GC, a busy core) without raising the database connections (the pool).
 */
export const BENCH_CONCURRENCY_DEFAULT = 32;

/** Cleanup steps, run last-in first-out, each on its own so one failure does not skip the rest. */
export const cleanups: { what: string; run: () => Promise<unknown> }[] = [];

export async function cleanUp(): Promise<void> {
  for (let step = cleanups.pop(); step; step = cleanups.pop()) {
    try {
      await step.run();
    } catch (error) {
      console.error(`cleanup: ${step.what} failed: ${(error as Error).message}`);
    }
  }
}

/**
 * Runs `main`, then the cleanups, also when it fails (exit code 1), when it is stopped (Ctrl-C,
 * `kill`, `timeout`, a closed terminal: 128 + the signal) and when whoever reads its output goes
 * away (`| head`: exit 141). Without the last two the process died at once and left its child
 * processes running, which then disturbed every later run.
 */
export async function runBench(main: () => Promise<void>): Promise<void> {
  let stopping = false;
  const stop = (why: string, code: number): void => {
    if (stopping) return;
    stopping = true;
    console.error(`bench: ${why}; cleaning up`);
    void cleanUp().finally(() => process.exit(code));
  };
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.once(signal, () => stop(`stopped by ${signal}`, code));
  }
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      stop('the reader of its output went away', 141);
    });
  }
  try {
    await main();
  } catch (error) {
    console.error(`bench: failed: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

/** Deletes the keys matching `pattern`, on every master of a cluster. */
export async function deleteKeys(redis: Redis, pattern: string): Promise<number> {
  if (isCluster(redis) && redis.status !== 'ready') await redis.ping();
  let deleted = 0;
  for (const node of mastersOf(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length === 0) continue;
      // A cluster node's keys lie in many slots, and UNLINK takes keys of one: a key a command.
      const counts = isCluster(redis)
        ? await Promise.all(keys.map((key) => node.unlink(key)))
        : [await node.unlink(...keys)];
      deleted += counts.reduce((sum, n) => sum + n, 0);
    } while (cursor !== '0');
  }
  return deleted;
}

export interface Scratch {
  /** The key prefix of this run, `bwbench-<random>`. */
  prefix: string;
  /** The scratch database, `bwbench_<random>`. */
  dbName: string;
  databaseUrl: URL;
  redis: Redis;
  /** One connection to the admin database (the scratch one was created from it). */
  adminDb: Knex;
}

/**
 * Connects to Redis and the admin database, creates and migrates a scratch database, and pushes
 * the cleanups that drop it, delete the run's keys and close both connections. `note` is added to
 * the line that names the scratch database and key prefix. With `migrate: false` the database is
 * left empty (for a baseline that is not botwire).
 */
export async function openScratch(
  options: { redisUrl: string; adminDatabaseUrl: string; migrate?: boolean },
  connectionName: string,
  note = '',
): Promise<Scratch> {
  const run = randomBytes(4).toString('hex');
  const prefix = `bwbench-${run}`;
  const dbName = `bwbench_${run}`;
  const databaseUrl = new URL(options.adminDatabaseUrl);
  databaseUrl.pathname = `/${dbName}`;

  const redis = createRedis(options.redisUrl, { name: connectionName, lazyConnect: true });
  await redis.connect();
  cleanups.push({ what: 'redis', run: () => redis.quit() });
  const adminDb = createDb(options.adminDatabaseUrl, { poolMax: 1 });
  cleanups.push({ what: 'postgres', run: () => adminDb.destroy() });

  console.error(`bench: scratch database ${dbName}, key prefix ${prefix}${note}`);
  await adminDb.raw('create database ??', [dbName]);
  cleanups.push({
    what: `drop database ${dbName}`,
    run: () => adminDb.raw('drop database if exists ?? with (force)', [dbName]),
  });
  cleanups.push({
    what: `delete keys ${prefix}*`,
    run: async () => console.error(`bench: deleted ${await deleteKeys(redis, `${prefix}*`)} keys`),
  });
  if (options.migrate === false) return { prefix, dbName, databaseUrl, redis, adminDb };
  await runCommand(
    ROOT,
    'bash',
    ['scripts/upgrade-db.sh'],
    childEnv({ ENV_FILE: '/nonexistent', DATABASE_URL: databaseUrl.toString() }),
  );
  return { prefix, dbName, databaseUrl, redis, adminDb };
}
