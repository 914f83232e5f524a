/**
 * The pipeline bench (`npm run bench:pipeline`): the api, channel, language and flow each in their
 * own processes, an echo bot, many simulated Telegram users posting to the callback at a fixed
 * rate, and a stand-in Telegram API on loopback that times every reply. See README.md.
 *
 * Env: BENCH_PROCESSES (processes of each of channel, language, flow; default 1), BENCH_USERS
 * (default 1000), BENCH_BOTS (default 25), BENCH_RATE (turns/s offered; default 525),
 * BENCH_SECONDS (measured window; default 20), BENCH_WARMUP_SECONDS (default 5),
 * BENCH_GRACE_SECONDS (how long replies may take after the run; default 10), BENCH_CONNECTIONS
 * (keep-alive connections to the edge; default 64), BENCH_CONCURRENCY (CONSUMER_CONCURRENCY;
 * default 32), BENCH_POOL_MAX (DATABASE_POOL_MAX; default 10), BENCH_REDIS_URL, BENCH_DATABASE_URL,
 * BENCH_PROF (a folder: every child runs with --cpu-prof and writes there when it stops),
 * BENCH_LANGUAGE_HOP (LANGUAGE_HOP of every component; default when_needed), BENCH_MAX_BACKLOG
 * (EDGE_MAX_BACKLOG of the api; default the api's own, 1000), BENCH_LINGER_MS (CONSUMER_LINGER_MS
 * of every component; default 0), BENCH_NODE_ARGS (more Node arguments for every child, e.g.
 * --trace-gc), BENCH_LATENCY_DUMP (a file: each measured turn's send time and latency, in ms;
 * with two channels, one file each, the channel's name appended), BENCH_CHANNELS (whose users, one phase each
 * in this order on the same pipeline: `telegram`, `web`, or both comma-separated; default
 * telegram; `npm run bench:web` runs `telegram,web`, Telegram being the baseline the web channel
 * is compared with), BENCH_REDIS (`single,cluster`: the whole run on a private single
 * redis-server, then again on a private loopback Redis Cluster of three masters and three
 * replicas, each set-up with its own scratch database, pipeline and users; a last table compares
 * them; `npm run bench:cluster`).
 */
import { randomBytes } from 'node:crypto';
import { startPrivateCluster } from '../../test/support/private-cluster.ts';
import { startPrivateRedis } from '../../test/support/private-services.ts';
import { PACES } from '../../src/channel/pacing.ts';
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
  BENCH_CONCURRENCY_DEFAULT,
  BENCH_CONSUMER_SETTINGS,
  BENCH_PARTITIONS,
  cleanUp,
  cleanups,
  commonOptions,
  intEnv,
  openScratch,
  ROOT,
  runBench,
} from '../lib/setup.ts';
import { createEchoBots } from './bots.ts';
import { Load, type User } from './load.ts';
import { runPhase, waitDrained } from './phase.ts';
import { startPlatform } from './platform.ts';
import {
  childGroup,
  pidGroup,
  postgresGroup,
  redisServerPids,
  waitConsuming,
  type CpuGroup,
} from './probes.ts';
import {
  printComparison,
  printRedisComparison,
  type RedisRun,
  type Setup,
  type Summary,
} from './report.ts';
import { createVisitors, createWebBots, openStreams, webRequest } from './web.ts';

const options = {
  processes: intEnv('BENCH_PROCESSES', 1, 1),
  users: intEnv('BENCH_USERS', 1000, 1),
  bots: intEnv('BENCH_BOTS', 25, 1),
  rate: intEnv('BENCH_RATE', 525, 1),
  seconds: intEnv('BENCH_SECONDS', 20, 1),
  graceSeconds: intEnv('BENCH_GRACE_SECONDS', 10, 1),
  connections: intEnv('BENCH_CONNECTIONS', 64, 1),
  concurrency: intEnv('BENCH_CONCURRENCY', BENCH_CONCURRENCY_DEFAULT, 1),
  poolMax: intEnv('BENCH_POOL_MAX', 10, 1),
  ...commonOptions(),
  // The bench configures no translation or speech provider, so with when_needed text skips the
  // language component (docs/pipeline.md); `always` measures the full five-hop pipeline.
  languageHop: process.env.BENCH_LANGUAGE_HOP || 'when_needed',
  lingerMs: intEnv('BENCH_LINGER_MS', 0, 0),
  maxBacklog: process.env.BENCH_MAX_BACKLOG ? intEnv('BENCH_MAX_BACKLOG', 1000, 0) : undefined,
  latencyDump: process.env.BENCH_LATENCY_DUMP || undefined,
  channels: (process.env.BENCH_CHANNELS || 'telegram').split(',').map((c) => c.trim()),
};
for (const channel of options.channels) {
  if (channel !== 'telegram' && channel !== 'web') {
    throw new Error(`BENCH_CHANNELS lists telegram and web (got ${channel})`);
  }
}
const channels = options.channels as Setup['channel'][];
if (!['always', 'when_needed'].includes(options.languageHop)) {
  throw new Error(`BENCH_LANGUAGE_HOP must be always or when_needed (got ${options.languageHop})`);
}
const warmupSeconds = intEnv('BENCH_WARMUP_SECONDS', 5, 0);

/** BENCH_REDIS: the Redis set-ups to run on one after the other; unset, BENCH_REDIS_URL alone. */
const REDIS_SETUPS = {
  single: 'single node',
  cluster: 'cluster',
} as const;
type RedisSetup = keyof typeof REDIS_SETUPS;
const redisSetups = (process.env.BENCH_REDIS || '')
  .split(',')
  .map((r) => r.trim())
  .filter(Boolean);
for (const setup of redisSetups) {
  if (!(setup in REDIS_SETUPS)) {
    throw new Error(`BENCH_REDIS lists single and cluster (got ${setup})`);
  }
}

const COMPONENTS = ['channel', 'language', 'flow'] as const satisfies readonly Topic[];

async function main(): Promise<void> {
  if (redisSetups.length === 0) {
    printComparison(await runPipeline(options.redisUrl));
    return;
  }
  const runs: RedisRun[] = [];
  for (const setup of redisSetups as RedisSetup[]) {
    const name = REDIS_SETUPS[setup];
    console.error(
      `bench: starting a private ${setup === 'single' ? 'redis-server' : 'Redis Cluster (3 masters, 3 replicas)'} on loopback`,
    );
    // Neither keeps an append-only file, as the development Redis: the comparison is of the
    // topology, not of persistence.
    const redis =
      setup === 'single'
        ? await startPrivateRedis({ persistence: 'none' })
        : await startPrivateCluster({ persistence: 'none' });
    cleanups.push({ what: `the private ${name}`, run: () => redis.close() });
    const summaries = await runPipeline(redis.url, name);
    printComparison(summaries);
    runs.push({ redis: name, summaries });
    // Everything of this set-up goes (children, database, keys, its Redis) before the next starts.
    await cleanUp();
  }
  printRedisComparison(runs);
}

/**
 * The whole bench on the Redis at `redisUrl`: a scratch database, the pipeline, one phase per
 * channel. `redisName` names the set-up in the reports (BENCH_REDIS).
 */
async function runPipeline(redisUrl: string, redisName?: string): Promise<Summary[]> {
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
  const nodeArgs = options.nodeArgs;
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
    'src/api/main.ts',
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
    nodeArgs,
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
          `src/${component}/main.ts`,
          childEnv({ ...common, CONSUMER_NAME: name }),
          nodeArgs,
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
    {
      name: 'bench (load + stand-in)',
      read: () => {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1e6;
      },
      processes: () => 1,
    },
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
  const summaries: Summary[] = [];
  for (const channel of channels) {
    if (summaries.length > 0) await waitDrained(redis, prefix, COMPONENTS, 60_000);
    let users: User[];
    let visitors: Awaited<ReturnType<typeof createVisitors>> = [];
    if (channel === 'telegram') {
      users = Array.from({ length: options.users }, (_, u) => ({
        chatId: 500_000_000 + u,
        ...bots[u % bots.length]!,
      }));
    } else {
      console.error(`bench: opening ${options.users} web visitor sessions and their event streams`);
      visitors = await createVisitors(apiOrigin, webBots, options.users);
      users = visitors;
    }
    const load = new Load({
      origin: new URL(apiOrigin),
      users,
      rate: options.rate,
      connections: options.connections,
      maxBacklog: Math.max(1000, options.rate * 10),
      ...(channel === 'web' ? { request: webRequest } : {}),
    });
    cleanups.push({ what: `${channel} load generator`, run: () => Promise.resolve(load.close()) });
    let streams: { close(): void } | undefined;
    if (channel === 'telegram') platform.onSend = (sent) => load.onReply(sent);
    else {
      streams = await openStreams(apiOrigin, visitors, (sent) => load.onReply(sent));
      cleanups.push({ what: 'web event streams', run: () => Promise.resolve(streams?.close()) });
    }
    summaries.push(
      await runPhase({
        load,
        setup: {
          channel,
          processes: options.processes,
          languageHop: options.languageHop,
          users: options.users,
          bots: options.bots,
          rate: options.rate,
          seconds: options.seconds,
          warmupSeconds,
          ...(redisName ? { redis: redisName } : {}),
          paceCeiling:
            channel === 'web'
              ? Infinity
              : Math.min(
                  (options.bots * 1000) / PACES.telegramBot.intervalMs,
                  (options.users * 1000) / PACES.telegramPrivateChat.intervalMs,
                ),
        },
        graceSeconds: options.graceSeconds,
        cpuGroups,
        topics: COMPONENTS,
        prefix,
        dbName,
        redis,
        adminDb,
        latencyDump:
          options.latencyDump && channels.length > 1
            ? `${options.latencyDump}.${channel}`
            : options.latencyDump,
      }),
    );
    // This phase's clients go before the next phase starts, so that they cost it nothing.
    streams?.close();
    load.close();
  }
  return summaries;
}

await runBench(main);
