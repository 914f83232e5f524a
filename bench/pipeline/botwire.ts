/**
 * botwire's pipeline as the bench runs it: a scratch database and key prefix, the stand-in Telegram
 * API, the api as a child process, the echo bots created through the admin API, then
 * `options.processes` processes each of channel, language and flow, waited for until their
 * partitions have settled.
 */
import { randomBytes } from 'node:crypto';
import type { Topic } from '../../src/shared/bus/topics.ts';
import {
  type Child,
  childEnv,
  freePort,
  startNode,
  stopChild,
  waitReady,
} from '../edge/processes.ts';
import {
  BENCH_CONSUMER_SETTINGS,
  BENCH_PARTITIONS,
  cleanups,
  componentEntry,
  openScratch,
  ROOT,
} from '../lib/setup.ts';
import { createEchoBots } from './bots.ts';
import type { Options } from './options.ts';
import type { System } from './phase.ts';
import { startPlatform } from './platform.ts';
import {
  benchGroup,
  childGroup,
  pidGroup,
  postgresGroup,
  redisServerPids,
  waitConsuming,
  type CpuGroup,
} from './probes.ts';
import { createWebBots } from './web.ts';

export const COMPONENTS = ['channel', 'language', 'flow'] as const satisfies readonly Topic[];

/**
 * Starts the pipeline on the Redis at `redisUrl` (`redisName` names a private set-up of
 * BENCH_REDIS in the reports), with echo bots for each of `channels`. Everything it starts is
 * stopped by the bench's cleanups.
 */
export async function startBotwire(
  options: Options,
  redisUrl: string,
  redisName: string | undefined,
  channels: readonly ('telegram' | 'web')[],
): Promise<{ system: System; apiOrigin: string; webBots: string[] }> {
  const { prefix, dbName, databaseUrl, redis, adminDb } = await openScratch(
    { ...options, redisUrl },
    'bench-pipeline',
    redisName ? ` on the ${redisName}` : '',
  );

  const platform = await startPlatform();
  cleanups.push({ what: 'stand-in platform', run: () => platform.close() });

  const adminKey = randomBytes(32).toString('base64url');
  const apiPort = await freePort();
  const apiOrigin = `http://127.0.0.1:${apiPort}`;
  const common = {
    STREAM_PREFIX: prefix,
    DATABASE_URL: databaseUrl.toString(),
    DATABASE_POOL_MAX: String(options.poolMax),
    REDIS_URL: redisUrl,
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    TELEGRAM_API_URL: platform.url,
    ...BENCH_CONSUMER_SETTINGS,
    CONSUMER_CONCURRENCY: String(options.concurrency),
    // Off by default, as in production; BENCH_LINGER_MS measures the trade (docs/pipeline.md).
    CONSUMER_LINGER_MS: String(options.lingerMs),
    SHUTDOWN_TIMEOUT_MS: '5000',
    LANGUAGE_HOP: options.languageHop,
  };
  const children: Child[] = [];
  // Every child pipes its stdout and stderr into ours (startNode).
  process.stderr.setMaxListeners(2 * (1 + 3 * options.processes) + 10);
  const api = startNode(
    'api',
    ROOT,
    componentEntry('api'),
    childEnv({
      ...common,
      ADMIN_API_KEY: adminKey,
      API_HOST: '127.0.0.1',
      ...(options.maxBacklog === undefined ? {} : { EDGE_MAX_BACKLOG: String(options.maxBacklog) }),
      API_PORT: String(apiPort),
      PUBLIC_BASE_URL: apiOrigin,
      // Every client is on loopback: each web visitor holds its event stream open, and the
      // per-address limit (256) would refuse most of them.
      EDGE_MAX_CONNECTIONS_PER_ADDRESS: '0',
    }),
    options.componentNodeArgs('api'),
  );
  children.push(api);
  cleanups.push({
    what: 'stop the children',
    run: () => Promise.all(children.map((child) => stopChild(child))),
  });
  await waitReady(api, `${apiOrigin}/readyz`);

  console.error(`bench: creating ${options.bots} echo bot(s) for each of ${channels.join(', ')}`);
  const bots = channels.includes('telegram')
    ? await createEchoBots(apiOrigin, adminKey, platform, options.bots)
    : [];
  const webBots = channels.includes('web')
    ? await createWebBots(apiOrigin, adminKey, options.bots)
    : [];

  const groups = new Map<string, Child[]>();
  for (const component of COMPONENTS) {
    const started: Child[] = [];
    for (let i = 1; i <= options.processes; i += 1) {
      const name = `${component}-${i}`;
      started.push(
        startNode(
          name,
          ROOT,
          componentEntry(component),
          childEnv({ ...common, CONSUMER_NAME: name }),
          options.componentNodeArgs(component),
        ),
      );
    }
    children.push(...started);
    groups.set(component, started);
  }
  console.error(`bench: waiting for ${options.processes} process(es) of each component`);
  await Promise.all(
    COMPONENTS.map((c) => waitConsuming(redis, prefix, c, BENCH_PARTITIONS, groups.get(c)!)),
  );

  // The Redis we use, not any other on the machine: every node of a cluster.
  const redisPids = await redisServerPids(redis);
  const cpuGroups: CpuGroup[] = [
    childGroup('api', [api]),
    ...COMPONENTS.map((c) => childGroup(c, groups.get(c)!)),
    benchGroup,
    ...(redisPids.replicas.length === 0
      ? [
          pidGroup(
            redisName ? `redis-server (${redisName})` : 'redis-server (shared)',
            redisPids.masters,
            'redis',
          ),
        ]
      : [
          pidGroup(`redis masters (${redisName ?? 'cluster'})`, redisPids.masters, 'redis'),
          pidGroup(`redis replicas (${redisName ?? 'cluster'})`, redisPids.replicas, 'redis'),
        ]),
    postgresGroup('postgres backends', dbName),
  ];
  return {
    system: {
      setup: {
        system: 'botwire',
        processes: options.processes,
        languageHop: options.languageHop,
        ...(redisName ? { redis: redisName } : {}),
      },
      origin: new URL(apiOrigin),
      platform,
      bots,
      paced: true,
      cpuGroups,
      topics: COMPONENTS,
      prefix,
      dbName,
      redis,
      adminDb,
    },
    apiOrigin,
    webBots,
  };
}
