import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths pino blanks out wherever they appear in a log line. */
export const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'req.headers["x-telegram-bot-api-secret-token"]',
  'req.headers["x-hub-signature-256"]',
  '*.password',
  '*.token',
  '*.bot_token',
  '*.access_token',
  '*.app_secret',
  '*.verify_token',
  '*.secret_token',
  '*.credentials',
  '*.apiKey',
  'details.bot_token',
  'details.access_token',
  'details.app_secret',
  'details.verify_token',
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
