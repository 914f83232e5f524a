import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Keys whose values are credentials wherever they appear. */
const SECRET_KEYS = [
  'password',
  'token',
  'bot_token',
  'access_token',
  'app_secret',
  'verify_token',
  'secret_token',
  'credentials',
  'apiKey',
];

/**
 * Paths pino blanks out. Redaction paths have no recursive wildcard, so each secret key is listed
 * at the top level and up to four levels down (`{channel: {details: {bot_token}}}` is three).
 */
export const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'req.headers["x-telegram-bot-api-secret-token"]',
  'req.headers["x-hub-signature-256"]',
  ...SECRET_KEYS.flatMap((key) => [
    key,
    `*.${key}`,
    `*.*.${key}`,
    `*.*.*.${key}`,
    `*.*.*.*.${key}`,
  ]),
];

/**
 * The root logger of one process: JSON lines on stdout, secrets redacted.
 * @param options.component written on every line.
 * @param options.level pino level (default `info`).
 */
export function createLogger(options: {
  component: string;
  level?: string;
  destination?: pino.DestinationStream;
}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { component: options.component },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const skip = (): void => undefined;

/**
 * A child logger made on first use, and not even then for a line below the level. `logger.child()`
 * runs its bindings through redaction at once; a stream consumer makes one per message and the
 * edge one per request, for handlers that mostly never log, and that alone cost 4 to 6 % of a
 * component's CPU (docs/pipeline.md).
 */
export function lazyChild(logger: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const made = (): Logger => (child ??= logger.child(bindings));
  return new Proxy(logger, {
    get(_target, property) {
      if (typeof property === 'string' && LEVELS.has(property) && !logger.isLevelEnabled(property))
        return skip;
      const target = made();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
    set(_target, property, value) {
      return Reflect.set(made(), property, value);
    },
  });
}

/** Masks the password of a connection URL for logs and error messages. */
export function maskUrl(url: string): string {
  // A Redis Cluster's list of seed nodes is no URL to WHATWG's parser.
  const cluster = /^(rediss?\+cluster:\/\/)(?:([^:@/]*)(?::[^@/]*)?@)?(.*)$/.exec(url);
  if (cluster) {
    const [, scheme, user, rest] = cluster;
    const hasPassword = /^rediss?\+cluster:\/\/[^@/]*:[^@/]*@/.test(url);
    const credentials = user || hasPassword ? `${user ?? ''}${hasPassword ? ':***' : ''}@` : '';
    return `${scheme}${credentials}${rest}`;
  }
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '[unparseable url]';
  }
}
