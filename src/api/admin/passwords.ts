/**
 * Account passwords: scrypt from node:crypto (memory-hard), a fresh 16-byte salt per hash, stored
 * as a self-describing PHC-style string `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64, no padding)
 * so the parameters can be raised later without breaking older hashes. Compared in constant time.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** The key derivation, replaceable so tests can count calls (always the real scrypt underneath). */
export type Kdf = (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: ScryptOptions,
) => Promise<Buffer>;

/** scrypt from node:crypto, as a promise. */
export const scryptKdf: Kdf = (password, salt, keyLength, options) =>
  new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });

/** log2 of N (2^15: 32 MiB of memory per hash with r=8), r and p of new hashes. */
const LOG_N = 15;
const R = 8;
const P = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Most work a stored string may ask for (log2 N): a hash string is data, and data can be wrong. */
const MAX_LOG_N = 20;

const FORMAT =
  /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

interface Parsed {
  logN: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function parse(stored: string): Parsed | undefined {
  const m = FORMAT.exec(stored);
  if (!m) return undefined;
  const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (logN < 1 || logN > MAX_LOG_N || r < 1 || p < 1) return undefined;
  return { logN, r, p, salt: Buffer.from(m[4]!, 'base64'), hash: Buffer.from(m[5]!, 'base64') };
}

const b64 = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '');

function options(logN: number, r: number, p: number): ScryptOptions {
  // Node refuses more than maxmem (32 MiB by default); 128 * N * r is what scrypt needs.
  return { N: 2 ** logN, r, p, maxmem: 128 * 2 ** logN * r * 2 };
}

/** Hashing and checking passwords with one {@link Kdf}. */
export class Passwords {
  readonly #kdf: Kdf;
  /**
   * A hash no password matches, with the current parameters: an unknown email is checked against
   * it, so a sign-in costs one key derivation whether or not the account exists.
   */
  readonly #dummy: string;

  constructor(kdf: Kdf = scryptKdf) {
    this.#kdf = kdf;
    this.#dummy = `$scrypt$ln=${LOG_N},r=${R},p=${P}$${b64(randomBytes(SALT_BYTES))}$${b64(randomBytes(KEY_BYTES))}`;
  }

  /** A new stored string for `password`. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await this.#kdf(password, salt, KEY_BYTES, options(LOG_N, R, P));
    return `$scrypt$ln=${LOG_N},r=${R},p=${P}$${b64(salt)}$${b64(key)}`;
  }

  /**
   * Whether `password` matches `stored`; with `stored` undefined (no such account) the dummy hash
   * is checked instead, by the same code, and the answer is false.
   */
  async verify(password: string, stored: string | undefined): Promise<boolean> {
    const parsed = parse(stored ?? this.#dummy) ?? parse(this.#dummy)!;
    const key = await this.#kdf(
      password,
      parsed.salt,
      parsed.hash.length,
      options(parsed.logN, parsed.r, parsed.p),
    );
    const same = key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
    return same && stored !== undefined;
  }
}
