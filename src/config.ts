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
  STREAM_PREFIX: {
    kind: 'string',
    default: 'botwire',
    pattern: '^[A-Za-z0-9_.:-]{1,64}$',
    doc: 'Prefix of every Redis key; stream keys are <prefix>:{<topic>} so each topic stays in one Redis Cluster slot.',
  },
  STREAM_MAXLEN: {
    kind: 'integer',
    default: 1000000,
    min: 1000,
    doc: 'Approximate length each topic stream is trimmed to on XADD (entries). Keep it above the largest backlog you expect: trimming drops the oldest entries even if unread.',
  },
  CONSUMER_NAME: {
    kind: 'string',
    default: '',
    pattern: '^[A-Za-z0-9_.:-]{0,128}$',
    doc: 'Name of this process in its consumer group; empty means <hostname>-<pid>. A stable name lets a restarted process resume its own pending entries at once.',
  },
  CONSUMER_BATCH_SIZE: {
    kind: 'integer',
    default: 64,
    min: 1,
    max: 10000,
    doc: 'Entries read from a topic per XREADGROUP call (count).',
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
  CONSUMER_CLAIM_IDLE_MS: {
    kind: 'integer',
    default: 30000,
    min: 100,
    doc: 'An entry delivered but not acknowledged for this long is reclaimed by another consumer and retried (milliseconds). Must exceed the slowest handler run.',
  },
  CONSUMER_CLAIM_INTERVAL_MS: {
    kind: 'integer',
    default: 5000,
    min: 50,
    doc: 'How often each consumer looks for entries to reclaim (milliseconds).',
  },
  CONSUMER_MAX_DELIVERIES: {
    kind: 'integer',
    default: 5,
    min: 1,
    max: 1000,
    doc: 'Deliveries after which a failing entry is moved to the dead-letter stream <prefix>:{<topic>}:dead (count).',
  },
  SHUTDOWN_TIMEOUT_MS: {
    kind: 'integer',
    default: 15000,
    min: 0,
    doc: 'On SIGTERM, how long in-flight work may take to finish before the process exits anyway (milliseconds).',
  },
} as const satisfies Record<string, Setting>;

export type SettingKey = keyof typeof SETTINGS;

/** Typed, validated settings handed down from `main.ts`. */
export interface Config {
  logLevel: string;
  redisUrl: string;
  databaseUrl: string;
  databasePoolMax: number;
  stream: {
    prefix: string;
    maxLen: number;
  };
  consumer: {
    name: string;
    batchSize: number;
    concurrency: number;
    blockMs: number;
    claimIdleMs: number;
    claimIntervalMs: number;
    maxDeliveries: number;
  };
  shutdownTimeoutMs: number;
}

/** Thrown when a setting is missing or malformed; its message names the key. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

function schemaOf(setting: Setting): Record<string, unknown> {
  const base: Record<string, unknown> =
    setting.kind === 'integer'
      ? { type: 'integer', minimum: setting.min, maximum: setting.max }
      : { type: 'string', minLength: setting.default === undefined ? 1 : 0 };
  if ('pattern' in setting && setting.pattern) base.pattern = setting.pattern;
  if ('enum' in setting && setting.enum) base.enum = setting.enum;
  return base;
}

const validate = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true }).compile({
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(SETTINGS as Record<string, Setting>).map(([key, s]) => [key, schemaOf(s)]),
  ),
  required: Object.keys(SETTINGS),
});

/**
 * Validates the environment and returns typed settings.
 * @throws ConfigError naming every bad or missing key.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const raw: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS as Record<string, Setting>)) {
    const value = env[key];
    raw[key] = value === undefined || value === '' ? setting.default : value.trim();
  }
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => {
      const key =
        e.instancePath.slice(1) ||
        (e.params as { missingProperty?: string }).missingProperty ||
        '?';
      return `${key} ${e.message ?? 'is invalid'}${e.instancePath ? ` (got ${JSON.stringify(raw[key])})` : ''}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const v = raw as Record<SettingKey, string> & Record<SettingKey, number>;
  return {
    logLevel: v.LOG_LEVEL,
    redisUrl: v.REDIS_URL,
    databaseUrl: v.DATABASE_URL,
    databasePoolMax: v.DATABASE_POOL_MAX,
    stream: { prefix: v.STREAM_PREFIX, maxLen: v.STREAM_MAXLEN },
    consumer: {
      name: v.CONSUMER_NAME || `${hostname()}-${process.pid}`,
      batchSize: v.CONSUMER_BATCH_SIZE,
      concurrency: v.CONSUMER_CONCURRENCY,
      blockMs: v.CONSUMER_BLOCK_MS,
      claimIdleMs: v.CONSUMER_CLAIM_IDLE_MS,
      claimIntervalMs: v.CONSUMER_CLAIM_INTERVAL_MS,
      maxDeliveries: v.CONSUMER_MAX_DELIVERIES,
    },
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
  };
}
