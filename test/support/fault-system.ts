/**
 * The whole pipeline as separate processes, for fault tests: the api (src/api/main.ts, the entry
 * scripts/run.sh starts) and one process of each worker component in `WORKERS`, against real
 * Redis and Postgres (the shared test servers, or private ones a test can stop), with a stand-in
 * Telegram and WhatsApp on loopback, and a storage folder of its own (STORAGE_DIR, removed on
 * close) for the api's uploads and the indexer. Two echo bots are created through the admin API: a Telegram
 * one (webhook registered, secret learnt) and a WhatsApp one.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countDeadLetters } from '../../src/shared/bus/dead-letters.ts';
import { topicKeys, type Topic } from '../../src/shared/bus/topics.ts';
import { createRedis, type Redis } from '../../src/shared/redis.ts';
import { callEdge, TELEGRAM_TOKEN, urlWithSchema, type EdgeClient } from './api.ts';
import { ECHO_FLOW } from './flows.ts';
import {
  startComponent,
  stopComponent,
  type ComponentLauncher,
  type ComponentName,
  type ComponentProcess,
} from './components.ts';
import { startPlatformStub, type PlatformStub } from './platform-stub.ts';
import { freePort } from './private-services.ts';
import {
  createTestSchema,
  DATABASE_URL,
  dropPrefix,
  REDIS_URL,
  uniquePrefix,
  type TestSchema,
} from './services.ts';

export interface WorkerSpec {
  component: ComponentName;
  /** The topic it consumes. */
  topic: Topic;
}

/**
 * The worker components the fault tests start, kill and poison. A new component (retriver,
 * indexer) joins every fault test by adding its entry here.
 */
export const WORKERS: readonly WorkerSpec[] = [
  { component: 'channel', topic: 'channel' },
  { component: 'language', topic: 'language' },
  { component: 'flow', topic: 'flow' },
  { component: 'retriver', topic: 'retriver' },
  { component: 'indexer', topic: 'indexer' },
];

/** The WhatsApp bot's phone_number_id. */
export const WHATSAPP_NUMBER = '5550001';

export interface HttpAnswer {
  status: number;
  json: any;
}

export interface FaultSystem {
  /** The settings every process runs with. */
  env: Record<string, string>;
  prefix: string;
  apiUrl: string;
  stub: PlatformStub;
  /** A connection to the Redis the processes use. */
  redis: Redis;
  schema: TestSchema;
  telegram: { appId: string; secret: string };
  whatsapp: { appId: string; number: string };
  /** The running process of each component. */
  processes: Map<ComponentName, ComponentProcess>;
  /** Calls the admin API with the admin key. */
  admin(method: string, path: string, body?: unknown): Promise<HttpAnswer>;
  /** The api process for helpers that call the edge (accounts, agents, web visitors). */
  edge: EdgeClient;
  kill(component: ComponentName, signal?: NodeJS.Signals): Promise<void>;
  /** Starts the component again (after `kill`) and waits until it runs. */
  restart(component: ComponentName): Promise<void>;
  close(): Promise<void>;
}

export interface FaultSystemOptions {
  /** Default: the shared test Redis. */
  redisUrl?: string;
  /** Default: the shared test database; the system migrates a schema of its own in it. */
  databaseUrl?: string;
  /** Settings over the defaults below. */
  settings?: Record<string, string>;
  /** How each component is started. @defaultValue `node` on the compiled build */
  launcher?: ComponentLauncher;
}

export async function startFaultSystem(options: FaultSystemOptions = {}): Promise<FaultSystem> {
  const redisUrl = options.redisUrl ?? REDIS_URL;
  const stub = await startPlatformStub();
  const schema = await createTestSchema(options.databaseUrl ?? DATABASE_URL);
  const prefix = uniquePrefix();
  const port = await freePort();
  const adminKey = randomBytes(24).toString('hex');
  // The uploaded documents, shared by the api (uploads) and the indexer (reads them).
  const storageDir = await mkdtemp(join(tmpdir(), 'botwire-fault-storage-'));
  const env: Record<string, string> = {
    REDIS_URL: redisUrl,
    DATABASE_URL: urlWithSchema(schema.schema, options.databaseUrl ?? DATABASE_URL),
    STREAM_PREFIX: prefix,
    API_HOST: '127.0.0.1',
    API_PORT: String(port),
    ADMIN_API_KEY: adminKey,
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    PUBLIC_BASE_URL: 'https://bots.example.test',
    TELEGRAM_API_URL: stub.url,
    WHATSAPP_API_URL: `${stub.url}/v21.0`,
    TOPIC_PARTITIONS: '4',
    CONSUMER_LEASE_MS: '1500',
    CONSUMER_BLOCK_MS: '200',
    CONSUMER_RETRY_BASE_MS: '100',
    SHUTDOWN_TIMEOUT_MS: '5000',
    STORAGE_DIR: storageDir,
    // A dead indexer's job is taken over 2 s after its lock lapses.
    INDEXER_LOCK_MS: '2000',
    // Words only: the embedded model costs tens of milliseconds of CPU a chunk, which the suites
    // indexing thousands of chunks do not need; the tests of meaning choose `local` or `api`.
    EMBEDDINGS_PROVIDER: 'none',
    ...options.settings,
  };
  const redis = createRedis(redisUrl, { name: 'botwire-fault-test' });
  redis.on('error', () => undefined); // the tests stop this Redis on purpose
  const processes = new Map<ComponentName, ComponentProcess>();
  let generation = 0;
  const launch = async (component: ComponentName): Promise<void> => {
    generation += 1;
    processes.set(
      component,
      await startComponent(component, `${component}-${generation}`, env, {
        timeoutMs: 90_000,
        ...(options.launcher ? { launcher: options.launcher } : {}),
      }),
    );
  };
  const apiUrl = `http://127.0.0.1:${port}`;
  const admin = async (method: string, path: string, body?: unknown): Promise<HttpAnswer> => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: response.status, json };
  };
  const system: FaultSystem = {
    env,
    prefix,
    apiUrl,
    stub,
    redis,
    schema,
    telegram: { appId: '', secret: '' },
    whatsapp: { appId: '', number: WHATSAPP_NUMBER },
    processes,
    admin,
    edge: {
      url: apiUrl,
      call: (method, path, options) => callEdge(apiUrl, adminKey, method, path, options),
    },
    async kill(component, signal = 'SIGKILL') {
      const running = processes.get(component);
      if (running) await stopComponent(running, signal);
    },
    restart: launch,
    async close() {
      await Promise.all([...processes.values()].map((c) => stopComponent(c, 'SIGKILL')));
      await stub.close();
      await Promise.race([
        dropPrefix(redis, prefix),
        new Promise((resolve) => setTimeout(resolve, 2000)),
      ]).catch(() => undefined);
      redis.disconnect();
      await schema.drop().catch(() => schema.db.destroy().catch(() => undefined));
      await rm(storageDir, { recursive: true, force: true });
    },
  };
  try {
    // allSettled: on a failure, every process that did start is in `processes` for close().
    const started = await Promise.allSettled([
      launch('api'),
      ...WORKERS.map((w) => launch(w.component)),
    ]);
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    await createBots(system);
  } catch (error) {
    await system.close();
    throw error;
  }
  return system;
}

/** A Telegram bot of a fault system, its webhook registered with the stand-in platform. */
export interface FaultTelegramBot {
  appId: string;
  channelId: string;
  /** The `secret_token` of its webhook, which its callbacks carry. */
  secret: string;
}

/** Creates a Telegram bot with `flow` through the admin API and registers its webhook. */
export async function addTelegramBot(
  system: Pick<FaultSystem, 'admin' | 'stub'>,
  name: string,
  flow: unknown,
): Promise<FaultTelegramBot> {
  const tg = await system.admin('POST', '/v2/bots', {
    name,
    flow,
    channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
  });
  if (tg.status !== 201) throw new Error(`telegram bot not created: ${JSON.stringify(tg.json)}`);
  const appId: string = tg.json.app_id;
  const channelId: string = tg.json.channels[0].id;
  const hook = await system.admin('POST', `/v2/bots/${appId}/channels/${channelId}/webhook`);
  if (hook.status !== 200) throw new Error(`webhook not set: ${JSON.stringify(hook.json)}`);
  const setWebhook = system.stub.calls.find(
    (c) => c.method === 'setWebhook' && String(c.body.url).endsWith(`/${appId}`),
  );
  const secret = setWebhook?.body.secret_token;
  if (typeof secret !== 'string') throw new Error('setWebhook carried no secret_token');
  return { appId, channelId, secret };
}

async function createBots(system: FaultSystem): Promise<void> {
  const { appId, secret } = await addTelegramBot(system, 'echo telegram', ECHO_FLOW);
  system.telegram = { appId, secret };
  const wa = await system.admin('POST', '/v2/bots', {
    name: 'echo whatsapp',
    flow: ECHO_FLOW,
    channel: {
      type: 'whatsapp',
      details: { phone_number_id: WHATSAPP_NUMBER, access_token: 'wa-token' },
    },
  });
  if (wa.status !== 201) throw new Error(`whatsapp bot not created: ${JSON.stringify(wa.json)}`);
  system.whatsapp = { appId: wa.json.app_id, number: WHATSAPP_NUMBER };
}

/**
 * What the topics hold now, for failure messages: per topic, entries pending (read, not yet
 * acknowledged) per partition with their consumers, and dead letters.
 */
export async function busState(system: FaultSystem): Promise<Record<string, unknown>> {
  const state: Record<string, unknown> = {};
  const partitions = Number(system.env.TOPIC_PARTITIONS);
  for (const { topic, component } of WORKERS) {
    const keys = topicKeys(system.prefix, topic, partitions);
    const pending: Record<string, unknown> = {};
    for (const [p, stream] of keys.partitions.entries()) {
      const rows = (await system.redis.call('XPENDING', stream, component, '-', '+', 20)) as [
        string,
        string,
        number,
        number,
      ][];
      if (rows.length > 0)
        pending[`p${p}`] = rows.map(([id, owner, idle, n]) => ({ id, owner, idle, n }));
    }
    state[topic] = {
      pending,
      dead: await countDeadLetters(system.redis, system.prefix, topic, partitions),
    };
  }
  return state;
}
