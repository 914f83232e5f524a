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

/** Masks the password of a connection URL for logs and error messages. */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '[unparseable url]';
  }
}
