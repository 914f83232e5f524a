/**
 * The knowledge components around a test edge: a storage folder of its own, the indexer and the
 * retriver started in-process with the edge's settings, and helpers to upload, index and wait.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { embedChunks } from '../../src/indexer/embed-chunks.ts';
import {
  beginAttempt,
  ensureCollection,
  finishJob,
  reloadJob,
  storeFile,
} from '../../src/indexer/store.ts';
import { startIndexer } from '../../src/indexer/worker.ts';
import type { Knex } from '../../src/shared/db.ts';
import type { EmbeddingProvider } from '../../src/shared/embeddings/provider.ts';
import { createJob } from '../../src/shared/knowledge/jobs.ts';
import { startRetriever } from '../../src/retriver/worker.ts';
import { createLogger } from '../../src/shared/logger.ts';
import type { Service } from '../../src/shared/process.ts';
import { expect } from 'chai';
import nock from 'nock';
import { startChannel } from '../../src/channel/worker.ts';
import { startFlow } from '../../src/flow/worker.ts';
import { startLanguage } from '../../src/language/worker.ts';
import {
  captureTelegramTexts,
  postTelegramUpdate,
  startTestApi,
  telegramText,
  type TestApi,
} from './api.ts';
import { startComponent, stopComponent, type ComponentProcess } from './components.ts';
import { waitFor } from './services.ts';

export interface KnowledgeEnv {
  api: TestApi;
  storageDir: string;
  logs: string[];
  /** Starts the in-process indexer and retriver (again, after `stopComponents`). */
  startComponents(overrides?: {
    env?: Record<string, string>;
    fetch?: typeof fetch;
  }): Promise<void>;
  stopComponents(): Promise<void>;
  stop(): Promise<void>;
}

/** Settings for knowledge tests: short job locks so a dead indexer's job is taken over quickly. */
export async function startKnowledge(
  overrides: Record<string, string> = {},
): Promise<KnowledgeEnv> {
  const storageDir = await mkdtemp(join(tmpdir(), 'botwire-storage-'));
  const api = await startTestApi({
    STORAGE_DIR: storageDir,
    INDEXER_LOCK_MS: '2000',
    ...overrides,
  });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  let services: Service[] = [];
  const env: KnowledgeEnv = {
    api,
    storageDir,
    logs,
    async startComponents(options = {}) {
      const config = loadConfig({ ...api.env, ...options.env });
      services = [
        await startIndexer(
          config,
          createLogger({ component: 'indexer', level: 'info', destination }),
        ),
        await startRetriever(
          config,
          createLogger({ component: 'retriver', level: 'info', destination }),
          options.fetch ? { fetch: options.fetch } : {},
        ),
      ];
    },
    async stopComponents() {
      await Promise.all(services.map((s) => s.close()));
      services = [];
    },
    async stop() {
      await env.stopComponents();
      await api.stop();
      await rm(storageDir, { recursive: true, force: true });
    },
  };
  return env;
}

/**
 * Uploads documents through `POST /v2/collections/<name>/files` (multipart); `replace` replaces
 * documents of the same names (`?replace=true`).
 */
export async function upload(
  api: TestApi,
  collection: string,
  files: Record<string, Buffer>,
  { replace = false } = {},
): Promise<{ status: number; json: any }> {
  const form = new FormData();
  for (const [name, bytes] of Object.entries(files)) form.append('file', new Blob([bytes]), name);
  const query = replace ? '?replace=true' : '';
  const response = await fetch(`${api.url}/v2/collections/${collection}/files${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.adminKey}` },
    body: form,
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Starts indexing through the admin API; returns the job id. */
export async function index(api: TestApi, collection: string, body?: unknown): Promise<string> {
  const response = await api.call(
    'POST',
    `/v2/collections/${collection}/index`,
    body === undefined ? {} : { body },
  );
  if (response.status !== 202)
    throw new Error(`index answered ${response.status}: ${response.text}`);
  return (response.json as { job_id: string }).job_id;
}

const FINISHED = ['succeeded', 'partial', 'failed', 'superseded'];

/** Polls `GET /v2/index-jobs/<id>` until the job has finished; returns its view. */
export async function waitForJob(api: TestApi, jobId: string, timeoutMs = 60_000): Promise<any> {
  return waitFor(
    async () => {
      const { status, json } = await api.call('GET', `/v2/index-jobs/${jobId}`);
      return status === 200 && FINISHED.includes((json as { status: string }).status)
        ? json
        : undefined;
    },
    { timeoutMs, intervalMs: 100, what: `indexing job ${jobId} to finish` },
  );
}

/** Searches through the admin API. */
export async function search(api: TestApi, collection: string, q: string, k = 5): Promise<any> {
  const { status, json, text } = await api.call(
    'GET',
    `/v2/collections/${collection}/search?q=${encodeURIComponent(q)}&k=${k}`,
  );
  if (status !== 200) throw new Error(`search answered ${status}: ${text}`);
  return json;
}

/** The edge and the indexer processes of a suite, there once its `before` hook has run. */
export interface IndexerProcessSuite {
  api: TestApi;
  storageDir: string;
  /** Starts an indexer process with the edge's settings and `env` over them; killed after the test. */
  start(name: string, env?: Record<string, string>): Promise<ComponentProcess>;
}

/**
 * The hooks of a suite that runs the indexer as a process: before all, a storage folder of its own
 * (`label` names it under the system's tmp) and an edge with `settings` that stores there; after
 * each test, the indexers it started that still run are killed; after all, the edge stops and
 * the folder goes.
 */
export function indexerProcessSuite(
  label: string,
  settings: Record<string, string>,
): IndexerProcessSuite {
  const started: ComponentProcess[] = [];
  const suite: IndexerProcessSuite = {
    api: undefined as unknown as TestApi, // set by the before hook, before any test reads it
    storageDir: '',
    async start(name, env = {}) {
      const indexer = await startComponent('indexer', name, { ...suite.api.env, ...env });
      started.push(indexer);
      return indexer;
    },
  };
  before(async () => {
    suite.storageDir = await mkdtemp(join(tmpdir(), label));
    suite.api = await startTestApi({ STORAGE_DIR: suite.storageDir, ...settings });
  });
  afterEach(async () => {
    for (const indexer of started.splice(0)) await stopComponent(indexer, 'SIGKILL');
  });
  after(async () => {
    await suite.api?.stop();
    if (suite.storageDir) await rm(suite.storageDir, { recursive: true, force: true });
  });
  return suite;
}

/** A Telegram user talking to bots through the chat components running in this process. */
export interface TelegramChat {
  /** Sends `text` from chat `chat` to `bot` and waits for the reply's text. */
  ask(bot: { appId: string; secret: string }, chat: number, text: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts channel, language and flow in this process on the knowledge environment's settings, and
 * records what they send to Telegram (nock, loopback only), for tests of knowledge answers end to
 * end.
 */
export async function startTelegramChat(env: KnowledgeEnv): Promise<TelegramChat> {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  const sent: string[] = [];
  captureTelegramTexts(sent);
  const logger = createLogger({ component: 'test', level: 'silent' });
  const config = env.api.config;
  const services = [
    await startChannel(config, logger),
    await startLanguage(config, logger),
    await startFlow(config, logger),
  ];
  let update = 0;
  return {
    async ask(bot, chat, text) {
      const before = sent.length;
      update += 1;
      const response = await postTelegramUpdate(
        env.api,
        bot.appId,
        bot.secret,
        telegramText(chat, update, text),
      );
      expect(response.status).to.equal(200);
      return waitFor(() => sent[before], { timeoutMs: 30_000, what: `the answer to "${text}"` });
    },
    async stop() {
      for (const service of services) await service.close();
      nock.cleanAll();
      nock.enableNetConnect();
    },
  };
}

/**
 * Indexes `texts` as the pages of one English file of `collection` through the indexer's own code
 * (a job, the store, the swap), in the database `db`; with `provider`, each text gets its vector
 * first, as a job of that model does. `jobId` names the job (one per call).
 */
export async function indexTexts(
  db: Knex,
  {
    collection,
    jobId,
    texts,
    provider,
  }: {
    collection: string;
    jobId: string;
    texts: readonly string[];
    provider?: EmbeddingProvider;
  },
): Promise<void> {
  await createJob(db, { jobId, collection, files: [], options: {} });
  const job = (await beginAttempt(db, jobId))!;
  const collectionId = await ensureCollection(db, collection);
  if (provider) await embedChunks(db, { collectionId, provider, texts, jobId: job.id });
  await storeFile(db, {
    job,
    collectionId,
    file: 'help.pdf',
    language: 'english',
    chunks: texts.map((text, i) => ({ text, page: i + 1 })),
    outcome: { status: 'indexed', chunks: texts.length },
  });
  const model = provider?.model ?? null;
  await finishJob(db, await reloadJob(db, job), collectionId, 'english', model);
}
