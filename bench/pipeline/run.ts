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
 * --trace-gc), BENCH_LATENCY_DUMP (a file: each measured turn's send time and latency, in ms).
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
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
  cleanups,
  commonOptions,
  intEnv,
  openScratch,
  ROOT,
  runBench,
} from '../lib/setup.ts';
import { createEchoBots } from './bots.ts';
import { Load, type User } from './load.ts';
import { startPlatform } from './platform.ts';
import {
  backlogOf,
  childGroup,
  counterDelta,
  machineTicks,
  pidGroup,
  postgresGroup,
  readCounters,
  waitConsuming,
  type CpuGroup,
} from './probes.ts';
import { printReport, type CpuRow, type MachineCpu } from './report.ts';

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
};
if (!['always', 'when_needed'].includes(options.languageHop)) {
  throw new Error(`BENCH_LANGUAGE_HOP must be always or when_needed (got ${options.languageHop})`);
}
const warmupSeconds = intEnv('BENCH_WARMUP_SECONDS', 5, 0);
/** Turns/s at which every user's first message is sent before the warm-up. */
const INTRODUCTION_RATE = 100;

const COMPONENTS = ['channel', 'language', 'flow'] as const satisfies readonly Topic[];

async function main(): Promise<void> {
  const { prefix, dbName, databaseUrl, redis, adminDb } = await openScratch(
    options,
    'bench-pipeline',
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
    REDIS_URL: options.redisUrl,
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
    }),
    nodeArgs,
  );
  children.push(api);
  cleanups.push({
    what: 'stop the children',
    run: () => Promise.all(children.map((child) => stopChild(child))),
  });
  await waitReady(api, `${apiOrigin}/readyz`);

  console.error(`bench: creating ${options.bots} echo bot(s)`);
  const bots = await createEchoBots(apiOrigin, adminKey, platform, options.bots);

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

  const users: User[] = Array.from({ length: options.users }, (_, u) => ({
    chatId: 500_000_000 + u,
    ...bots[u % bots.length]!,
  }));
  const load = new Load({
    origin: new URL(apiOrigin),
    users,
    rate: options.rate,
    connections: options.connections,
    maxBacklog: Math.max(1000, options.rate * 10),
  });
  cleanups.push({ what: 'load generator', run: () => Promise.resolve(load.close()) });
  platform.onSend = (sent) => load.onReply(sent);

  // The Redis we use, not any other on the machine.
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
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
    pidGroup('redis-server (shared)', [redisPid]),
    postgresGroup('postgres backends', dbName),
  ];
  let before: (number | undefined)[] = [];
  let after: (number | undefined)[] = [];
  let ticksBefore: ReturnType<typeof machineTicks>;
  let ticksAfter: ReturnType<typeof machineTicks>;
  let countersBefore: ReturnType<typeof readCounters> | undefined;
  let countersAfter: ReturnType<typeof readCounters> | undefined;
  console.error(
    `bench: introducing ${options.users} users (first message each, ${Math.min(options.rate, INTRODUCTION_RATE)}/s)`,
  );
  await load.introduce(Math.min(options.rate, INTRODUCTION_RATE), 60_000);
  if (load.owed > 0) console.error(`bench: ${load.owed} first messages still unanswered; going on`);
  console.error(
    `bench: ${options.users} users, ${options.rate} turns/s: ${warmupSeconds} s warm-up, then ${options.seconds} s measured`,
  );
  await load.drive(warmupSeconds * 1000, options.seconds * 1000, (mark) => {
    const readings = cpuGroups.map((g) => g.read());
    // Read without waiting: the generator must keep its pace.
    const counters = readCounters(adminDb, dbName, redis);
    counters.catch(() => undefined);
    if (mark === 'start') {
      before = readings;
      ticksBefore = machineTicks();
      countersBefore = counters;
    } else {
      after = readings;
      ticksAfter = machineTicks();
      countersAfter = counters;
    }
  });
  const backlog = await Promise.all(
    COMPONENTS.map((topic) => backlogOf(redis, prefix, topic, BENCH_PARTITIONS)),
  );
  console.error(
    `bench: waiting up to ${options.graceSeconds} s for ${load.owed} replies still owed`,
  );
  await load.drain(options.graceSeconds * 1000, 1000);
  if (options.latencyDump) {
    const lines = load
      .latencyBySendTime()
      .map(([sent, ms]) => `${sent.toFixed(1)} ${ms.toFixed(1)}`);
    await writeFile(options.latencyDump, `sent_ms latency_ms\n${lines.join('\n')}\n`);
    console.error(`bench: ${lines.length} turns' latencies written to ${options.latencyDump}`);
  }

  let machine: MachineCpu | undefined;
  if (ticksBefore && ticksAfter) {
    const total = ticksAfter[2] - ticksBefore[2];
    machine = {
      cores: availableParallelism(),
      busy: (ticksAfter[0] - ticksBefore[0]) / total,
      iowait: (ticksAfter[1] - ticksBefore[1]) / total,
    };
  }
  const cpu: CpuRow[] = cpuGroups.map((g, i) => ({
    name: g.name,
    processes: g.processes(),
    seconds: before[i] === undefined || after[i] === undefined ? undefined : after[i] - before[i],
  }));
  printReport({
    setup: {
      processes: options.processes,
      languageHop: options.languageHop,
      users: options.users,
      bots: options.bots,
      rate: options.rate,
      seconds: options.seconds,
      warmupSeconds,
      paceCeiling: Math.min(
        (options.bots * 1000) / PACES.telegramBot.intervalMs,
        (options.users * 1000) / PACES.telegramPrivateChat.intervalMs,
      ),
    },
    result: load.result(),
    cpu,
    machine,
    backlog,
    counters:
      countersBefore && countersAfter
        ? counterDelta(await countersBefore, await countersAfter)
        : undefined,
  });
}

await runBench(main);
