/**
 * The one redaction every audit summary passes through (docs/audit.md, "Secrets"). A key is
 * dropped when one of its words (split at `_`, `-`, `.`, spaces and camelCase) names a secret, so
 * `bot_token`, `accessToken`, `app_secret`, `token_key` and `password_hash` go while `keywords`
 * and `allowed_origins` stay. String values shaped like a credential (a Telegram bot token, a
 * bearer header, a PEM block) are replaced wherever they appear, whatever their key.
 */

/** Words that make a key secret. Over-redaction is harmless here; a leak is not. */
const SECRET_WORDS = new Set([
  'token',
  'tokens',
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'passphrase',
  'key',
  'keys',
  'apikey',
  'hash',
  'hashes',
  'salt',
  'credential',
  'credentials',
  'signature',
  'cookie',
  'cookies',
  'authorization',
  'auth',
  'session',
  'otp',
  'pin',
  'private',
]);

/** Values that are credentials whatever key holds them. */
const SECRET_VALUES = [
  /\b\d{5,}:[A-Za-z0-9_-]{30,}\b/, // a Telegram bot token
  /\bbearer\s+\S+/i,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/** What a secret-shaped value becomes. */
export const REDACTED = '[redacted]';

/** Deepest nesting kept; anything below is cut (a summary is a summary). */
const MAX_DEPTH = 8;

function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** Whether an object key names a secret (its value is never written). */
export function isSecretKey(key: string): boolean {
  return wordsOf(key).some((w) => SECRET_WORDS.has(w));
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    return SECRET_VALUES.some((re) => re.test(value)) ? REDACTED : value;
  }
  if (value === null || typeof value !== 'object') {
    return typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
  }
  if (depth >= MAX_DEPTH) return '[cut]';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => clean(v, depth + 1) ?? null);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (isSecretKey(key)) continue;
    const cleaned = clean(inner, depth + 1);
    if (cleaned !== undefined) out[key] = cleaned;
  }
  return out;
}

/**
 * A copy of `value` safe to write to the audit log: secret keys dropped at every depth (in arrays
 * too), credential-shaped strings replaced by {@link REDACTED}, functions and undefined left out,
 * dates as ISO strings.
 */
export function redact<T extends Record<string, unknown>>(value: T): Record<string, unknown> {
  return clean(value, 0) as Record<string, unknown>;
}
