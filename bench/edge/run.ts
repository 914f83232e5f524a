/**
 * The edge bench (`npm run bench:edge`): the real edge (src/api/main.ts) against a baseline that
 * only parses and XADDs, both as child processes, under autocannon. See README.md.
 *
 * Env: BENCH_SECONDS (each measured run, default 10), BENCH_CONNECTIONS (default 50),
 * BENCH_WARMUP_SECONDS (unmeasured run before each scenario's first, default 2; 0 skips),
 * BENCH_ROUNDS (measured runs per scenario, interleaved; the median is reported; default 1),
 * BENCH_RATE (requests/s offered in total instead of as many as possible, default 0 = unlimited;
 * with a fixed rate compare the server CPU per request, not req/s),
 * BENCH_REDIS_URL
 * (default redis://127.0.0.1:6379), BENCH_DATABASE_URL (a database to create the scratch one
 * from, default postgres://postgres@127.0.0.1:5432/postgres), BENCH_PROF (a folder: the edge and
 * the baseline run with --cpu-prof and write their profiles there when they stop).
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import type { Redis } from '../../src/shared/redis.ts';
import { BotStore } from '../../src/shared/bots/store.ts';
import { SETTINGS } from '../../src/config.ts';
import { topicKeys } from '../../src/shared/bus/topics.ts';
import { createDb } from '../../src/shared/db.ts';
import { telegramRequests, whatsappRequests, type RequestFactory } from './payloads.ts';
import {
  type Child,
  childEnv,
  cpuSeconds,
  freePort,
  startNode,
  stopChild,
  waitReady,
} from './processes.ts';
import {
  cleanups,
  commonOptions,
  compiledScript,
  componentEntry,
  intEnv,
  openScratch,
  ROOT,
  runBench,
} from '../lib/setup.ts';
import { printReport, type Outcome, type ServerKind } from './report.ts';

const options = {
  seconds: intEnv('BENCH_SECONDS', 10, 1),
  connections: intEnv('BENCH_CONNECTIONS', 50, 1),
  warmupSeconds: intEnv('BENCH_WARMUP_SECONDS', 2, 0),
  rounds: intEnv('BENCH_ROUNDS', 1, 1),
  rate: intEnv('BENCH_RATE', 0, 0),
  ...commonOptions(),
};

interface Scenario {
  name: string;
  server: ServerKind;
  origin: string;
  path: string;
  requests: RequestFactory;
  /** The server process, whose CPU time is measured. */
  process: Child;
}

async function load(scenario: Scenario, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: scenario.origin,
    connections: options.connections,
    duration: seconds,
    ...(options.rate > 0 ? { overallRate: options.rate } : {}),
    requests: [
      {
        method: 'POST',
        path: scenario.path,
        // A new body (new platform id, new signature) for every request.
        setupRequest: (request) => {
          const { body, headers } = scenario.requests();
          return { ...request, body, headers: { ...request.headers, ...headers } };
        },
      },
    ],
  });
}

async function admin<T>(origin: string, key: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) {
    throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  }
  return (await response.json()) as T;
}

async function totalLength(redis: Redis, streams: readonly string[]): Promise<number> {
  const lengths = await Promise.all(streams.map((stream) => redis.xlen(stream)));
  return lengths.reduce((sum, length) => sum + length, 0);
}

async function main(): Promise<void> {
  const { prefix, databaseUrl, redis } = await openScratch(options, 'bench-edge');
  const baselineStream = `${prefix}-baseline:{channel}`;
  const floorStream = `${prefix}-floor:{channel}`;
  // The edge spreads the channel topic over partition streams; the check adds them up.
  const partitions = SETTINGS.TOPIC_PARTITIONS.default;
  const edgeStreams = topicKeys(prefix, 'channel', partitions).partitions;
  const contractPrefix = `${prefix}-contract`;
  const contractStreams = topicKeys(contractPrefix, 'channel', partitions).partitions;

  const adminKey = randomBytes(32).toString('base64url');
  const credentialsKey = randomBytes(32).toString('base64');
  const [edgePort, baselinePort, floorPort, contractPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const phoneNumberId = `1555${Math.floor(Math.random() * 1e8)}`;
  const appSecret = randomBytes(24).toString('hex');
  const edge = startNode(
    'edge',
    ROOT,
    componentEntry('api'),
    childEnv({
      STREAM_PREFIX: prefix,
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: options.redisUrl,
      ADMIN_API_KEY: adminKey,
      CREDENTIALS_KEY: credentialsKey,
      LOG_LEVEL: 'warn',
      API_HOST: '127.0.0.1',
      API_PORT: String(edgePort),
      TOPIC_PARTITIONS: String(partitions),
      // Nothing reads the topic here, so the pipeline's backlog limit would refuse every callback
      // after the first 1000 (503), and the bench would measure refusals. Off; the per-bot
      // accounting still runs on every callback, with a limit no bot reaches.
      EDGE_MAX_BACKLOG: '0',
      EDGE_MAX_BOT_BACKLOG: '100000000',
    }),
    options.componentNodeArgs('api'),
  );
  cleanups.push({ what: 'stop the edge', run: () => stopChild(edge) });
  const baseline = startNode(
    'baseline',
    ROOT,
    compiledScript('bench/edge/baseline.ts'),
    childEnv({
      BASELINE_PORT: String(baselinePort),
      BASELINE_STREAM: baselineStream,
      REDIS_URL: options.redisUrl,
    }),
    options.nodeArgs,
  );
  cleanups.push({ what: 'stop the baseline', run: () => stopChild(baseline) });
  const startFloor = (level: 'once' | 'contract', port: number, stream: string): Child => {
    const floor = startNode(
      `floor ${level}`,
      ROOT,
      compiledScript('bench/edge/floor.ts'),
      childEnv({
        FLOOR_PORT: String(port),
        FLOOR_STREAM: stream,
        FLOOR_LEVEL: level,
        FLOOR_APP_SECRET: appSecret,
        FLOOR_PARTITIONS: String(partitions),
        REDIS_URL: options.redisUrl,
      }),
      options.nodeArgs,
    );
    cleanups.push({ what: `stop the ${level} floor`, run: () => stopChild(floor) });
    return floor;
  };
  const floor = startFloor('once', floorPort, floorStream);
  const contract = startFloor('contract', contractPort, contractPrefix);
  const edgeOrigin = `http://127.0.0.1:${edgePort}`;
  const baselineOrigin = `http://127.0.0.1:${baselinePort}`;
  const floorOrigin = `http://127.0.0.1:${floorPort}`;
  const contractOrigin = `http://127.0.0.1:${contractPort}`;
  await Promise.all([
    waitReady(edge, `${edgeOrigin}/readyz`),
    waitReady(baseline, `${baselineOrigin}/`),
    waitReady(floor, `${floorOrigin}/`),
    waitReady(contract, `${contractOrigin}/`),
  ]);

  type Created = { app_id: string; channels: { id: string }[] };
  await admin<Created>(edgeOrigin, adminKey, '/v2/bots', {
    name: 'bench whatsapp',
    channel: {
      type: 'whatsapp',
      details: { phone_number_id: phoneNumberId, access_token: 'bench', app_secret: appSecret },
    },
  });
  const telegram = await admin<Created>(edgeOrigin, adminKey, '/v2/bots', {
    name: 'bench telegram',
    channel: {
      type: 'telegram',
      details: { bot_token: `123456789:${randomBytes(26).toString('base64url')}` },
    },
  });
  // The secret token is generated by the edge and stored sealed: open it as the edge does.
  const scratchDb = createDb(databaseUrl.toString(), { poolMax: 1 });
  const bot = await new BotStore({
    db: scratchDb,
    credentialsKey: Buffer.from(credentialsKey, 'base64'),
  }).getBot(telegram.app_id);
  await scratchDb.destroy();
  const secrets = bot?.channels[0]?.secrets;
  if (secrets?.type !== 'telegram') throw new Error('the telegram bot has no telegram channel');

  const scenarios: Scenario[] = [
    {
      name: 'edge whatsapp POST /callback',
      server: 'edge',
      origin: edgeOrigin,
      path: '/callback',
      requests: whatsappRequests(phoneNumberId, appSecret),
      process: edge,
    },
    {
      name: 'edge telegram POST /v2/callback/telegram/:id',
      server: 'edge',
      origin: edgeOrigin,
      path: `/v2/callback/telegram/${telegram.app_id}`,
      requests: telegramRequests(secrets.secret_token),
      process: edge,
    },
    {
      name: 'floor: +signature +once script (whatsapp)',
      server: 'floor',
      origin: floorOrigin,
      path: '/callback',
      requests: whatsappRequests(phoneNumberId, appSecret),
      process: floor,
    },
    {
      name: 'floor: +schemas +channel_in +bot ledger',
      server: 'contract',
      origin: contractOrigin,
      path: '/callback',
      requests: whatsappRequests(phoneNumberId, appSecret),
      process: contract,
    },
    {
      name: 'baseline koa+bodyparser+XADD (whatsapp body)',
      server: 'baseline',
      origin: baselineOrigin,
      path: '/callback',
      requests: whatsappRequests(phoneNumberId, appSecret),
      process: baseline,
    },
  ];
  // Redis's own CPU per request, where its process is on this machine: the edge's scripts cost
  // there, and on 2 cores Redis's time is taken from the servers' and the load generator's.
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]) || undefined;
  // Rounds interleave the scenarios, so a slow spell of the machine hits all of them alike.
  const outcomes: Outcome[] = scenarios.map((s) => ({
    name: s.name,
    server: s.server,
    runs: [],
    warm2xx: 0,
  }));
  for (let round = 1; round <= options.rounds; round++) {
    for (const [index, scenario] of scenarios.entries()) {
      const outcome = outcomes[index]!;
      if (round === 1 && options.warmupSeconds > 0) {
        console.error(`bench: warming up ${scenario.name} (${options.warmupSeconds} s)`);
        outcome.warm2xx = (await load(scenario, options.warmupSeconds))['2xx'];
      }
      console.error(
        `bench: round ${round}/${options.rounds} ${scenario.name} (${options.seconds} s, ${options.connections} connections)`,
      );
      const cpuBefore = cpuSeconds(scenario.process.process.pid);
      const redisBefore = cpuSeconds(redisPid);
      const result = await load(scenario, options.seconds);
      const cpuAfter = cpuSeconds(scenario.process.process.pid);
      const redisAfter = cpuSeconds(redisPid);
      const perRequest = (before?: number, after?: number): number | undefined =>
        before === undefined || after === undefined || result.requests.total === 0
          ? undefined
          : ((after - before) * 1e6) / result.requests.total;
      outcome.runs.push({
        result,
        cpuUsPerRequest: perRequest(cpuBefore, cpuAfter),
        redisCpuUsPerRequest: perRequest(redisBefore, redisAfter),
      });
    }
  }
  // Let requests cut off when a run stopped finish on the server side before counting.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  printReport({
    outcomes,
    connections: options.connections,
    runsPerScenario: options.rounds + (options.warmupSeconds > 0 ? 1 : 0),
    streams: [
      {
        key: `${edgeStreams[0]}..p${partitions - 1}`,
        length: await totalLength(redis, edgeStreams),
        server: 'edge',
      },
      { key: floorStream, length: await redis.xlen(floorStream), server: 'floor' },
      {
        key: `${contractStreams[0]}..p${partitions - 1}`,
        length: await totalLength(redis, contractStreams),
        server: 'contract',
      },
      { key: baselineStream, length: await redis.xlen(baselineStream), server: 'baseline' },
    ],
  });
}

await runBench(main);
