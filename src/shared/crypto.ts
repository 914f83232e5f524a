/**
 * Sealing channel credentials at rest with AES-256-GCM. A sealed value is
 * `v1.<iv>.<tag>.<ciphertext>` (base64url parts). The associated data binds a sealed value to its
 * row (the channel id), so a ciphertext copied onto another row does not open.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

const VERSION = 'v1';

export function seal(key: Buffer, plaintext: string, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/** @throws Error when the value was not sealed with this key and associated data. */
export function open(key: Buffer, sealed: string, associatedData: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) {
    throw new Error('not a sealed value');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([
    decipher.update(Buffer.from(ciphertext, 'base64url')),
    decipher.final(),
  ]).toString('utf8');
}

/**
 * Compares a secret in time that does not depend on its content. Only the length can show, and
 * botwire's secrets have fixed, public lengths (generated tokens, hex HMACs).
 */
export function secretsEqual(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The SHA-256 digest of a secret, for `matchesDigest`. */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * Compares a secret with the digest of the expected one in constant time, whatever the lengths:
 * for secrets an operator chooses (the admin API key), whose length is not public.
 */
export function matchesDigest(given: string | undefined, digest: Buffer): boolean {
  return given !== undefined && timingSafeEqual(secretDigest(given), digest);
}

/** A fresh random token for webhooks (Telegram allows A-Z, a-z, 0-9, _ and -). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
