/**
 * The design's floor as the bench runs it (./floor-bus.ts): an edge, a channel and a flow process
 * that do nothing but their hops (`hops`), or those and the records exactly-once needs
 * (`records`), on the bench's Redis, with a scratch database of their own, the
 * stand-in Telegram API, and `options.bots` bots. The users, load generator, stand-in and CPU
 * accounting are those botwire and the grammY bot are measured with.
 */
import { type Child, childEnv, startNode, stopChild, waitReady } from '../edge/processes.ts';
import { cleanups, compiledScript, ROOT } from '../lib/setup.ts';
import { openHandWritten } from './hand-written.ts';
import type { FloorKind, Options } from './options.ts';
import type { System } from './phase.ts';
import { benchGroup, childGroup, pidGroup, postgresGroup, redisServerPids } from './probes.ts';
import type { Redis } from '../../src/shared/redis.ts';

/** Waits until `stream` has a consumer in the floor's group: its process is reading. */
async function waitReading(redis: Redis, stream: string, child: Child): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited before reading`);
    const consumers = (await redis
      .xinfo('CONSUMERS', stream, 'floor')
      .catch(() => [])) as unknown[];
    if (consumers.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${child.name} was not reading ${stream} after 30 s`);
}

export async function startFloor(options: Options, kind: FloorKind): Promise<System> {
  const { prefix, dbName, databaseUrl, redis, adminDb, platform, bots, port, origin } =
    await openHandWritten(options, 'bench-pipeline-floor', ' for the floor', 800_000_000);
  const script = compiledScript('bench/pipeline/floor-bus.ts');
  const common = {
    FLOOR_PREFIX: prefix,
    FLOOR_BOTS: JSON.stringify(bots),
    REDIS_URL: options.redisUrl,
    DATABASE_URL: databaseUrl.toString(),
    TELEGRAM_API_URL: platform.url,
    FLOOR_RECORDS: kind === 'records' ? 'on' : 'off',
    FLOOR_LINGER_MS: String(options.lingerMs),
  };
  const children: Child[] = [];
  cleanups.push({
    what: 'stop the floor',
    run: () => Promise.all(children.map((child) => stopChild(child))),
  });
  const start = (role: string, env: Record<string, string> = {}): Child => {
    const child = startNode(
      `floor-${role}`,
      ROOT,
      script,
      childEnv({ ...common, ...env, FLOOR_ROLE: role }),
      options.nodeArgs,
    );
    children.push(child);
    return child;
  };
  const edge = start('edge', { FLOOR_PORT: String(port) });
  const channel = start('channel');
  const flow = start('flow');
  await waitReady(edge, `${origin}/healthz`);
  await waitReading(redis, `${prefix}:floor:channel`, channel);
  await waitReading(redis, `${prefix}:floor:flow`, flow);

  const redisPids = await redisServerPids(redis);
  return {
    setup: {
      system: kind === 'records' ? 'floor+records' : 'floor',
      processes: 1,
      languageHop: '-',
    },
    origin: new URL(origin),
    platform,
    bots: bots.map(({ secret }, b) => ({ path: `/bot/${b}`, secret })),
    paced: false,
    cpuGroups: [
      childGroup('edge', [edge]),
      childGroup('channel', [channel]),
      childGroup('flow', [flow]),
      benchGroup,
      pidGroup('redis-server (shared)', redisPids.masters, 'redis'),
      postgresGroup('postgres backends', dbName),
    ],
    topics: [],
    prefix,
    dbName,
    redis,
    adminDb,
  };
}
