/**
 * Console sessions in Redis: one key per session, expiring with it, so every api process sees a
 * sign-in and a sign-out at once and nothing needs sweeping.
 */
import { randomToken, secretDigest } from '../../shared/crypto.ts';
import type { Redis } from '../../shared/redis.ts';

/** Who a session belongs to and when it ends. */
export interface Session {
  actor: string;
  /** ISO time the session ends. */
  expiresAt: string;
}

export interface SessionStoreOptions {
  redis: Redis;
  prefix: string;
  /** A session's lifetime from sign-in (seconds). */
  ttlS: number;
}

/** A session token is 32 random bytes, base64url: 43 characters. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class SessionStore {
  readonly #o: SessionStoreOptions;

  constructor(options: SessionStoreOptions) {
    this.#o = options;
  }

  /**
   * Keyed by the token's digest, not the token: whoever reads Redis (a dump, MONITOR) learns no
   * cookie that signs in. The digest is the hash tag, so sessions spread over a cluster.
   */
  #key(token: string): string {
    return `${this.#o.prefix}:session:{${secretDigest(token).toString('hex')}}`;
  }

  /** Starts a session for `actor`; returns its token (the cookie value) and its end. */
  async create(actor: string): Promise<{ token: string; session: Session }> {
    const token = randomToken(32);
    const expiresAt = new Date(Date.now() + this.#o.ttlS * 1000).toISOString();
    const session: Session = { actor, expiresAt };
    await this.#o.redis.set(this.#key(token), JSON.stringify(session), 'EX', this.#o.ttlS);
    return { token, session };
  }

  /** The live session of `token`, or undefined (unknown, ended, or not a token at all). */
  async get(token: string | undefined): Promise<Session | undefined> {
    if (token === undefined || !TOKEN.test(token)) return undefined;
    const stored = await this.#o.redis.get(this.#key(token));
    return stored === null ? undefined : (JSON.parse(stored) as Session);
  }

  /** Ends the session of `token` (nothing when there is none). */
  async delete(token: string | undefined): Promise<void> {
    if (token === undefined || !TOKEN.test(token)) return;
    await this.#o.redis.del(this.#key(token));
  }
}
