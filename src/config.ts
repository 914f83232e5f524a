/**
 * The one place that reads settings. Every key is declared here with its type, default, unit and
 * meaning; `.env-dev.template` is generated from this table (`npm run env:template`), and a test
 * checks the two agree. `loadConfig` is given the environment by `main.ts`, the only code that
 * touches `process`.
 */
import { Ajv } from 'ajv';
import { hostname } from 'node:os';

type Kind = 'string' | 'integer' | 'url' | 'secret';

interface Setting {
  kind: Kind;
  /** Used when the key is unset or empty; a setting without a default is required. */
  default?: string | number;
  /** One line for the env template and the docs: meaning, unit, range. */
  doc: string;
  min?: number;
  max?: number;
  pattern?: string;
  enum?: readonly string[];
  /** Components that cannot start without it (when it has no default). */
  requiredBy?: readonly string[];
}

/** Every setting botwire reads, in the order the env template lists them. */
export const SETTINGS = {
  LOG_LEVEL: {
    kind: 'string',
    default: 'info',
    enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    doc: 'pino log level: fatal, error, warn, info, debug, trace or silent.',
  },
  REDIS_URL: {
    kind: 'url',
    default: 'redis://127.0.0.1:6379',
    pattern: '^rediss?://',
    doc: 'Redis holding the topics (streams), dedupe keys and BullMQ jobs: redis[s]://[user:password@]host:port[/db].',
  },
  DATABASE_URL: {
    kind: 'url',
    default: 'postgres://postgres:postgres@localhost:5432/botwire',
    pattern: '^postgres(ql)?://',
    doc: 'Postgres for bots, conversations, state and knowledge: postgres://user:password@host:port/database.',
  },
  DATABASE_POOL_MAX: {
    kind: 'integer',
    default: 10,
    min: 1,
    max: 200,
    doc: 'Most Postgres connections one process keeps open (count).',
  },
  DATABASE_STATEMENT_TIMEOUT_MS: {
    kind: 'integer',
    default: 30000,
    min: 0,
    doc: 'Longest a Postgres statement may run before the server cancels it (milliseconds; 0 leaves it to the server or role statement_timeout, e.g. behind PgBouncer). The indexer uses INDEXER_STATEMENT_TIMEOUT_MS instead. See docs/operations.md.',
  },
  DATABASE_IDLE_TRANSACTION_TIMEOUT_MS: {
    kind: 'integer',
    default: 60000,
    min: 0,
    doc: 'Longest a Postgres transaction may sit idle between statements before the server ends the session, releasing its locks (milliseconds; 0 leaves it to the server or role setting).',
  },
  DATABASE_CONNECT_TIMEOUT_MS: {
    kind: 'integer',
    default: 10000,
    min: 100,
    doc: 'Longest opening one Postgres connection may take before it fails (milliseconds).',
  },
  STREAM_PREFIX: {
    kind: 'string',
    default: 'botwire',
    pattern: '^[A-Za-z0-9_.:-]{1,64}$',
    doc: 'Prefix of every Redis key; stream keys are <prefix>:{<topic>} so each topic stays in one Redis Cluster slot.',
  },
  TOPIC_PARTITIONS: {
    kind: 'integer',
    default: 8,
    min: 1,
    max: 256,
    doc: 'Partition streams per topic: the most processes of one component that share its load. A conversation stays in one partition, which keeps its order. Set it once: changing it moves keys to other partitions.',
  },
  STREAM_MAXLEN: {
    kind: 'integer',
    default: 1000000,
    min: 1000,
    doc: 'Approximate length each partition stream is trimmed to on XADD (entries). Keep it above the largest backlog you expect: trimming drops the oldest entries even if unread.',
  },
  CONSUMER_NAME: {
    kind: 'string',
    default: '',
    pattern: '^[A-Za-z0-9_.:-]{0,128}$',
    doc: 'Name of this process in its consumer groups, unique among running processes; empty means <hostname>-<pid>.',
  },
  CONSUMER_BATCH_SIZE: {
    kind: 'integer',
    default: 64,
    min: 1,
    max: 10000,
    doc: 'Entries read per partition stream by one XREADGROUP call (its COUNT, which applies to each stream named).',
  },
  CONSUMER_CONCURRENCY: {
    kind: 'integer',
    default: 16,
    min: 1,
    max: 1024,
    doc: 'Messages one process handles at once; messages with the same ordering key are still handled one after another (count).',
  },
  CONSUMER_BLOCK_MS: {
    kind: 'integer',
    default: 2000,
    min: 10,
    max: 60000,
    doc: 'How long one XREADGROUP waits for new entries before looping (milliseconds).',
  },
  CONSUMER_LINGER_MS: {
    kind: 'integer',
    default: 0,
    min: 0,
    max: 100,
    doc: 'After a read that found new entries, fewer in all than CONSUMER_BATCH_SIZE, how long a consumer waits before reading again, so that entries arriving meanwhile are handled and committed together; adds up to this much latency per hop (milliseconds).',
  },
  CONSUMER_LEASE_MS: {
    kind: 'integer',
    default: 10000,
    min: 300,
    max: 600000,
    doc: 'Lease on a topic partition (milliseconds): renewed every third of it; when a process dies, its partitions pass to the others after at most this long.',
  },
  CONSUMER_RETRY_BASE_MS: {
    kind: 'integer',
    default: 500,
    min: 1,
    max: 60000,
    doc: 'First retry delay after a handler fails (milliseconds); doubled on each further delivery, at most 30 s.',
  },
  CONSUMER_MAX_DELIVERIES: {
    kind: 'integer',
    default: 5,
    min: 1,
    max: 1000,
    doc: 'Deliveries after which a failing entry is moved to the dead-letter stream <prefix>:{<topic>}:dead (count).',
  },
  API_HOST: {
    kind: 'string',
    default: '0.0.0.0',
    doc: 'Address the HTTP edge (component api) listens on.',
  },
  API_PORT: {
    kind: 'integer',
    default: 8000,
    min: 0,
    max: 65535,
    doc: 'Port of the HTTP edge: platform callbacks, admin API, health and metrics (0 picks a free port).',
  },
  PUBLIC_BASE_URL: {
    kind: 'url',
    default: 'http://localhost:8000',
    pattern: '^https?://[^\\s]+[^/]$',
    doc: 'Public https base URL the platforms reach this edge at (no trailing slash); callback URLs and webhooks are built from it.',
  },
  ADMIN_API_KEY: {
    kind: 'secret',
    pattern: '^\\S{32,}$',
    requiredBy: ['api'],
    doc: 'Bearer token of the admin API (at least 32 characters; setup generates one). Secret.',
  },
  CREDENTIALS_KEY: {
    kind: 'secret',
    pattern: '^[A-Za-z0-9+/]{43}=$',
    requiredBy: ['api', 'channel', 'flow'],
    doc: 'AES-256-GCM key sealing channel credentials at rest: 32 random bytes, base64 (`openssl rand -base64 32`). Also required by language when SPEECH_API_URL is set. Secret; changing it makes stored credentials unreadable.',
  },
  HTTP_BODY_LIMIT_BYTES: {
    kind: 'integer',
    default: 1048576,
    min: 1024,
    max: 67108864,
    doc: 'Largest JSON body the edge accepts (bytes); larger ones get 413.',
  },
  DEDUPE_TTL_S: {
    kind: 'integer',
    default: 86400,
    min: 60,
    doc: 'How long the edge remembers a platform update id to drop redeliveries (seconds). Each id costs about 180 bytes of Redis memory for this long (docs/operations.md); older redeliveries are still caught by channel, which records every platform message id in Postgres.',
  },
  EDGE_MAX_BACKLOG: {
    kind: 'integer',
    default: 1000,
    min: 0,
    doc: 'Backpressure: while more than this many messages wait in the channel, language and flow topics (unread plus unacknowledged, sampled every 250 ms), the edge answers platform callbacks 503 with Retry-After, so the platform retries later instead of the backlog growing without bound (count; 0 turns it off).',
  },
  TELEGRAM_API_URL: {
    kind: 'url',
    default: 'https://api.telegram.org',
    pattern: '^https?://[^\\s]+[^/]$',
    doc: 'Base URL of the Telegram Bot API (no trailing slash); point it at a local emulator in tests.',
  },
  WHATSAPP_API_URL: {
    kind: 'url',
    default: 'https://graph.facebook.com/v21.0',
    pattern: '^https?://[^\\s]+[^/]$',
    doc: 'Base URL of the WhatsApp Cloud API, version included (no trailing slash).',
  },
  FLOW_EFFECT_TIMEOUT_MS: {
    kind: 'integer',
    default: 15000,
    min: 100,
    max: 300000,
    doc: 'How long a flow waits for a knowledge answer before it goes on without one (milliseconds).',
  },
  TRANSLATE_API_URL: {
    kind: 'url',
    default: '',
    pattern: '^(https?://\\S+[^/])?$',
    doc: 'LibreTranslate-compatible translation API (POST /translate), no trailing slash; empty means no translation: text passes through unchanged, recorded as such.',
  },
  TRANSLATE_API_KEY: {
    kind: 'secret',
    default: '',
    doc: 'API key for the translation provider, if it needs one. Secret.',
  },
  SPEECH_API_URL: {
    kind: 'url',
    default: '',
    pattern: '^(https?://\\S+[^/])?$',
    doc: 'OpenAI-compatible audio API base URL (POST /audio/transcriptions, /audio/speech), no trailing slash; empty means voice messages get a reply that voice is not supported. When set, language reads channel credentials to download voice messages, so it needs DATABASE_URL and CREDENTIALS_KEY.',
  },
  SPEECH_API_KEY: {
    kind: 'secret',
    default: '',
    doc: 'Bearer key for the audio API. Secret.',
  },
  SPEECH_STT_MODEL: {
    kind: 'string',
    default: 'whisper-1',
    doc: 'Speech-to-text model name sent to the audio API.',
  },
  SPEECH_TTS_MODEL: {
    kind: 'string',
    default: 'tts-1',
    doc: 'Text-to-speech model name sent to the audio API.',
  },
  SPEECH_TTS_VOICE: {
    kind: 'string',
    default: 'alloy',
    doc: 'Text-to-speech voice name.',
  },
  STORAGE_DIR: {
    kind: 'string',
    default: './storage',
    doc: 'Folder where uploaded documents are kept, one subfolder per collection; api writes it, indexer reads it (share it between machines, e.g. NFS, when they run apart). Relative paths are from the working directory.',
  },
  MAX_DOCUMENT_BYTES: {
    kind: 'integer',
    default: 52428800,
    min: 1024,
    max: 1073741824,
    doc: 'Largest document accepted for upload and indexing (bytes); larger uploads get 413, larger files fail in the job.',
  },
  SPREADSHEET_MEMORY_MB: {
    kind: 'integer',
    default: 512,
    min: 16,
    max: 16384,
    doc: 'V8 heap cap of the worker thread that reads one spreadsheet (MiB); a file needing more fails as too large. See docs/knowledge.md.',
  },
  SPREADSHEET_TIMEOUT_MS: {
    kind: 'integer',
    default: 30000,
    min: 500,
    doc: 'Wall-clock limit for reading one spreadsheet, worker start included (milliseconds); a slower file fails as too large.',
  },
  PDF_TIMEOUT_MS: {
    kind: 'integer',
    default: 120000,
    min: 500,
    doc: 'Wall-clock limit for reading and chunking one PDF in its worker thread, thread start included (milliseconds); the thread is terminated then and the file fails alone as too large. See docs/knowledge.md.',
  },
  PDF_MEMORY_MB: {
    kind: 'integer',
    default: 1024,
    min: 32,
    max: 16384,
    doc: 'V8 heap cap of the worker thread that reads and chunks one PDF (MiB); a file needing more fails alone as too large.',
  },
  INDEXER_SLICE_MS: {
    kind: 'integer',
    default: 60000,
    min: 0,
    doc: 'After a job has run this long, it goes to the end of the queue between two files whenever other indexing jobs wait, and resumes later after the files done, so one collection cannot hold the indexer (milliseconds; 0 yields after every file while others wait). See docs/knowledge.md.',
  },
  INDEXER_CONCURRENCY: {
    kind: 'integer',
    default: 1,
    min: 1,
    max: 16,
    doc: 'Indexing jobs one indexer process runs at once.',
  },
  INDEXER_READ_LANES: {
    kind: 'integer',
    default: 2,
    min: 1,
    max: 8,
    doc: 'Files one indexing job reads at once; each PDF read at once takes a pdf.js thread (about 400 MiB resident; up to two idle ones are kept for the next job) and shares the cores, and so its time limit, with the others; spreadsheets are read one at a time whatever this says. 1 reads one file at a time. See docs/knowledge.md.',
  },
  INDEXER_STATEMENT_TIMEOUT_MS: {
    kind: 'integer',
    default: 600000,
    min: 0,
    doc: "Longest one of the indexer's Postgres statements may run (milliseconds; 0 leaves it to the server or role statement_timeout): storing a batch of chunks, carrying a failed file's chunks into a new generation, deleting an old generation, analysing a collection. Larger than DATABASE_STATEMENT_TIMEOUT_MS because these grow with the collection.",
  },
  INDEXER_LOCK_MS: {
    kind: 'integer',
    default: 30000,
    min: 1000,
    doc: 'How long a job stays locked to an indexer that stopped renewing it (died) before another takes it over (milliseconds).',
  },
  INDEXER_ATTEMPTS: {
    kind: 'integer',
    default: 3,
    min: 1,
    max: 20,
    doc: 'Tries of one indexing job (after a crash or an infrastructure failure; a bad file fails alone and is not retried).',
  },
  LLM_API_URL: {
    kind: 'url',
    default: '',
    pattern: '^(https?://\\S+[^/])?$',
    doc: 'OpenAI-compatible chat completions API base URL (POST /chat/completions), no trailing slash; when set, knowledge answers are written by the model from the passages found; empty means the best passages are sent, cited by source.',
  },
  LLM_API_KEY: {
    kind: 'secret',
    default: '',
    doc: 'Bearer key for the LLM API. Secret.',
  },
  LLM_MODEL: {
    kind: 'string',
    default: 'gpt-4o-mini',
    doc: 'Model name sent to the LLM API.',
  },
  LLM_TIMEOUT_MS: {
    kind: 'integer',
    default: 10000,
    min: 100,
    max: 120000,
    doc: 'How long the retriever waits for the LLM before it answers with the passages instead (milliseconds).',
  },
  LANGUAGE_HOP: {
    kind: 'string',
    default: 'always',
    enum: ['always', 'when_needed'],
    doc: 'always: every text goes through the language component. when_needed: while TRANSLATE_API_URL and SPEECH_API_URL are both empty, channel detects the language itself and passes text straight to flow, and flow sends replies straight to channel (two hops fewer per turn, same messages); every component must then read the same provider settings.',
  },
  SHUTDOWN_TIMEOUT_MS: {
    kind: 'integer',
    default: 15000,
    min: 0,
    doc: 'On SIGTERM, how long in-flight work may take to finish before the process exits anyway (milliseconds).',
  },
} as const satisfies Record<string, Setting>;

export type SettingKey = keyof typeof SETTINGS;

/** Settings a component needs only when another one is set. */
const REQUIRED_WHEN: readonly {
  key: SettingKey;
  component: string;
  when: SettingKey;
  why: string;
}[] = [
  {
    key: 'CREDENTIALS_KEY',
    component: 'language',
    when: 'SPEECH_API_URL',
    why: 'voice messages are downloaded with the channel credentials',
  },
];

/** Typed, validated settings handed down from `main.ts`. */
export interface Config {
  logLevel: string;
  redisUrl: string;
  databaseUrl: string;
  databasePoolMax: number;
  /** Server-side limits and the connect timeout of every Postgres connection (milliseconds; a limit of 0 is left to the server or role). */
  databaseTimeouts: { statementMs: number; idleInTransactionMs: number; connectMs: number };
  stream: {
    prefix: string;
    maxLen: number;
    partitions: number;
  };
  consumer: {
    name: string;
    batchSize: number;
    concurrency: number;
    blockMs: number;
    lingerMs: number;
    leaseMs: number;
    retryBaseMs: number;
    maxDeliveries: number;
  };
  shutdownTimeoutMs: number;
  api: {
    host: string;
    port: number;
    publicBaseUrl: string;
    adminApiKey: string;
    bodyLimitBytes: number;
    dedupeTtlS: number;
    /** Pipeline backlog (messages) over which callbacks are refused; 0 for never. */
    maxBacklog: number;
  };
  /** AES-256-GCM key (32 bytes), or undefined where the component does not need it. */
  credentialsKey: Buffer | undefined;
  providers: {
    telegramApiUrl: string;
    whatsappApiUrl: string;
    /** Empty when no translation provider is configured. */
    translateApiUrl: string;
    translateApiKey: string;
    /** Empty when no speech provider is configured. */
    speechApiUrl: string;
    speechApiKey: string;
    speechSttModel: string;
    speechTtsModel: string;
    speechTtsVoice: string;
  };
  flow: {
    effectTimeoutMs: number;
  };
  knowledge: {
    storageDir: string;
    maxDocumentBytes: number;
    spreadsheetMemoryMb: number;
    spreadsheetTimeoutMs: number;
    pdfTimeoutMs: number;
    pdfMemoryMb: number;
    indexerSliceMs: number;
    indexerConcurrency: number;
    indexerLockMs: number;
    indexerReadLanes: number;
    /** The indexer's statement timeout, in place of `databaseTimeouts.statementMs`. */
    indexerStatementTimeoutMs: number;
    indexerAttempts: number;
    /** Empty when no LLM is configured. */
    llmApiUrl: string;
    llmApiKey: string;
    llmModel: string;
    llmTimeoutMs: number;
  };
  /**
   * True when `LANGUAGE_HOP=when_needed` and no translation or speech provider is configured:
   * channel and flow then do language's pass-through work themselves.
   */
  skipLanguage: boolean;
}

/** Thrown when a setting is missing or malformed; its message names the key. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

function schemaOf(setting: Setting): Record<string, unknown> {
  const base: Record<string, unknown> =
    setting.kind === 'integer'
      ? { type: 'integer', minimum: setting.min, maximum: setting.max }
      : { type: 'string' };
  if ('pattern' in setting && setting.pattern) base.pattern = setting.pattern;
  if ('enum' in setting && setting.enum) base.enum = setting.enum;
  return base;
}

const validate = new Ajv({ allErrors: true, coerceTypes: true }).compile({
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(SETTINGS as Record<string, Setting>).map(([key, s]) => [key, schemaOf(s)]),
  ),
});

/**
 * Validates the environment and returns typed settings.
 * @param component the component starting; settings it requires must be set. Without one (tools,
 *   tests), only the values that are set are checked.
 * @throws ConfigError naming every bad or missing key.
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  component?: string,
): Config {
  const raw: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const [key, setting] of Object.entries(SETTINGS as Record<string, Setting>)) {
    const value = env[key]?.trim();
    if (value) raw[key] = value;
    else if (setting.default !== undefined) raw[key] = setting.default;
    else if (component && setting.requiredBy?.includes(component)) missing.push(key);
  }
  const problems = missing.map((key) => `${key} is required by ${component}`);
  for (const rule of REQUIRED_WHEN) {
    if (component === rule.component && raw[rule.when] && !raw[rule.key])
      problems.push(
        `${rule.key} is required by ${component} when ${rule.when} is set (${rule.why})`,
      );
  }
  if (!validate(raw)) {
    for (const e of validate.errors ?? []) {
      const key = e.instancePath.slice(1) || '?';
      const secret = (SETTINGS as Record<string, Setting>)[key]?.kind === 'secret';
      const got = secret ? '' : ` (got ${JSON.stringify(raw[key])})`;
      problems.push(`${key} ${e.message ?? 'is invalid'}${got}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  const v = raw as Record<SettingKey, string> & Record<SettingKey, number>;
  const key = raw.CREDENTIALS_KEY as string | undefined;
  return {
    logLevel: v.LOG_LEVEL,
    redisUrl: v.REDIS_URL,
    databaseUrl: v.DATABASE_URL,
    databasePoolMax: v.DATABASE_POOL_MAX,
    databaseTimeouts: {
      statementMs: v.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionMs: v.DATABASE_IDLE_TRANSACTION_TIMEOUT_MS,
      connectMs: v.DATABASE_CONNECT_TIMEOUT_MS,
    },
    stream: { prefix: v.STREAM_PREFIX, maxLen: v.STREAM_MAXLEN, partitions: v.TOPIC_PARTITIONS },
    consumer: {
      name: v.CONSUMER_NAME || `${hostname()}-${process.pid}`,
      batchSize: v.CONSUMER_BATCH_SIZE,
      concurrency: v.CONSUMER_CONCURRENCY,
      blockMs: v.CONSUMER_BLOCK_MS,
      lingerMs: v.CONSUMER_LINGER_MS,
      leaseMs: v.CONSUMER_LEASE_MS,
      retryBaseMs: v.CONSUMER_RETRY_BASE_MS,
      maxDeliveries: v.CONSUMER_MAX_DELIVERIES,
    },
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    api: {
      host: v.API_HOST,
      port: v.API_PORT,
      publicBaseUrl: v.PUBLIC_BASE_URL,
      adminApiKey: (raw.ADMIN_API_KEY as string | undefined) ?? '',
      bodyLimitBytes: v.HTTP_BODY_LIMIT_BYTES,
      dedupeTtlS: v.DEDUPE_TTL_S,
      maxBacklog: v.EDGE_MAX_BACKLOG,
    },
    credentialsKey: key ? Buffer.from(key, 'base64') : undefined,
    providers: {
      telegramApiUrl: v.TELEGRAM_API_URL,
      whatsappApiUrl: v.WHATSAPP_API_URL,
      translateApiUrl: v.TRANSLATE_API_URL,
      translateApiKey: v.TRANSLATE_API_KEY,
      speechApiUrl: v.SPEECH_API_URL,
      speechApiKey: v.SPEECH_API_KEY,
      speechSttModel: v.SPEECH_STT_MODEL,
      speechTtsModel: v.SPEECH_TTS_MODEL,
      speechTtsVoice: v.SPEECH_TTS_VOICE,
    },
    flow: { effectTimeoutMs: v.FLOW_EFFECT_TIMEOUT_MS },
    knowledge: {
      storageDir: v.STORAGE_DIR,
      maxDocumentBytes: v.MAX_DOCUMENT_BYTES,
      spreadsheetMemoryMb: v.SPREADSHEET_MEMORY_MB,
      spreadsheetTimeoutMs: v.SPREADSHEET_TIMEOUT_MS,
      pdfTimeoutMs: v.PDF_TIMEOUT_MS,
      pdfMemoryMb: v.PDF_MEMORY_MB,
      indexerSliceMs: v.INDEXER_SLICE_MS,
      indexerConcurrency: v.INDEXER_CONCURRENCY,
      indexerLockMs: v.INDEXER_LOCK_MS,
      indexerReadLanes: v.INDEXER_READ_LANES,
      indexerStatementTimeoutMs: v.INDEXER_STATEMENT_TIMEOUT_MS,
      indexerAttempts: v.INDEXER_ATTEMPTS,
      llmApiUrl: v.LLM_API_URL,
      llmApiKey: v.LLM_API_KEY,
      llmModel: v.LLM_MODEL,
      llmTimeoutMs: v.LLM_TIMEOUT_MS,
    },
    skipLanguage: v.LANGUAGE_HOP === 'when_needed' && !v.TRANSLATE_API_URL && !v.SPEECH_API_URL,
  };
}
