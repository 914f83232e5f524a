/**
 * Sealing channel credentials at rest with AES-256-GCM. A sealed value is
 * `v2.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts; the key id is `keyId` of the sealing key),
 * so a reader holding several keys picks the right one without trying each. Values sealed before
 * key ids existed are `v1.<iv>.<tag>.<ciphertext>`; they still open. The associated data binds a
 * sealed value to its row (the channel id), so a ciphertext copied onto another row does not open.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

const VERSION = 'v2';

/**
 * A short public name of a key: 12 hex digits of a SHA-256 of it (domain-separated, so it is no
 * digest used anywhere else). Reveals nothing usable about a 256-bit random key; lets logs,
 * commands and sealed values say which key without the key.
 */
export function keyId(key: Buffer): string {
  return createHash('sha256')
    .update('botwire credentials key id\0', 'utf8')
    .update(key)
    .digest('hex')
    .slice(0, 12);
}

/** The parts of a sealed value; `keyId` is undefined for a `v1` value, which does not name its key. */
interface SealedParts {
  keyId: string | undefined;
  iv: string;
  tag: string;
  ciphertext: string;
}

function parse(sealed: string): SealedParts {
  const parts = sealed.split('.');
  const [version] = parts;
  if (version === 'v1' && parts.length === 4) {
    const [, iv = '', tag = '', ciphertext = ''] = parts;
    if (iv && tag) return { keyId: undefined, iv, tag, ciphertext };
  }
  if (version === 'v2' && parts.length === 5) {
    const [, id = '', iv = '', tag = '', ciphertext = ''] = parts;
    if (id && iv && tag) return { keyId: id, iv, tag, ciphertext };
  }
  throw new Error('not a sealed value');
}

/** The key id a sealed value names; undefined for a `v1` value. @throws Error when it is not a sealed value. */
export function sealedKeyId(sealed: string): string | undefined {
  return parse(sealed).keyId;
}

/** Seals `plaintext` with `key` in the current format (`v2`, naming the key). */
export function seal(key: Buffer, plaintext: string, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, keyId(key), iv, cipher.getAuthTag(), ciphertext]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/**
 * Opens a `v1` or `v2` sealed value with `key` (the key id of a `v2` value is not checked here:
 * the authentication tag decides).
 * @throws Error when the value was not sealed with this key and associated data.
 */
export function open(key: Buffer, sealed: string, associatedData: string): string {
  const { iv, tag, ciphertext } = parse(sealed);
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
