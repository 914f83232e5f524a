/**
 * Console sessions in Redis: one key per session, expiring with it, so every api process sees a
 * sign-in and a sign-out at once and nothing needs sweeping. The sessions of an account are also
 * indexed (a hash of session id -> key digest per account), so they can be listed and ended, one
 * or all at once (an owner disabling the account).
 */
import { randomUUID } from 'node:crypto';
import { randomToken, secretDigest } from '../../shared/crypto.ts';
import type { Redis } from '../../shared/redis.ts';

/** Who a session belongs to and when it ends. */
export interface Session {
  /** A public id (listing and revoking); not the token. */
  id: string;
  /** "admin-key" for an admin-key sign-in, "account:<email>" for an account's. */
  actor: string;
  /** The account signed in; null for the admin key. */
  accountId: string | null;
  /** ISO time the session ends. */
  expiresAt: string;
  /** ISO time of the sign-in. */
  createdAt: string;
  /** The address and user agent of the sign-in (shown in the list of sessions). */
  address: string;
  userAgent: string;
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
  #keyOfDigest(digest: string): string {
    return `${this.#o.prefix}:session:{${digest}}`;
  }

  #key(token: string): string {
    return this.#keyOfDigest(secretDigest(token).toString('hex'));
  }

  #index(accountId: string): string {
    return `${this.#o.prefix}:account-sessions:{${accountId}}`;
  }

  /** Starts a session; returns its token (the cookie value) and the session. */
  async create(input: {
    actor: string;
    accountId: string | null;
    address: string;
    userAgent: string;
  }): Promise<{ token: string; session: Session }> {
    const token = randomToken(32);
    const now = Date.now();
    const session: Session = {
      id: randomUUID(),
      actor: input.actor,
      accountId: input.accountId,
      expiresAt: new Date(now + this.#o.ttlS * 1000).toISOString(),
      createdAt: new Date(now).toISOString(),
      address: input.address,
      userAgent: input.userAgent.slice(0, 200),
    };
    const digest = secretDigest(token).toString('hex');
    await this.#o.redis.set(this.#keyOfDigest(digest), JSON.stringify(session), 'EX', this.#o.ttlS);
    if (input.accountId !== null) {
      // The index lives as long as its newest session; ended sessions in it are pruned on reading.
      const index = this.#index(input.accountId);
      await this.#o.redis
        .multi()
        .hset(index, session.id, digest)
        .expire(index, this.#o.ttlS)
        .exec();
    }
    return { token, session };
  }

  /** The live session of `token`, or undefined (unknown, ended, or not a token at all). */
  async get(token: string | undefined): Promise<Session | undefined> {
    if (token === undefined || !TOKEN.test(token)) return undefined;
    const stored = await this.#o.redis.get(this.#key(token));
    return stored === null ? undefined : (JSON.parse(stored) as Session);
  }

  /** Ends the session of `token`; returns it, or undefined when there was no live one. */
  async delete(token: string | undefined): Promise<Session | undefined> {
    const session = await this.get(token);
    if (token === undefined || !TOKEN.test(token)) return undefined;
    await this.#o.redis.del(this.#key(token));
    if (session?.accountId) await this.#o.redis.hdel(this.#index(session.accountId), session.id);
    return session;
  }

  /** The live sessions of an account, oldest first. */
  async list(accountId: string): Promise<Session[]> {
    const index = this.#index(accountId);
    const entries = await this.#o.redis.hgetall(index);
    const ids = Object.keys(entries);
    if (ids.length === 0) return [];
    // One GET per session, sent together: the keys sit in different cluster slots, which one
    // pipeline cannot span (the api's auto-pipelined connection still sends them in one write).
    const results = await Promise.all(
      ids.map((id) => this.#o.redis.get(this.#keyOfDigest(entries[id]!))),
    );
    const live: Session[] = [];
    const ended: string[] = [];
    ids.forEach((id, i) => {
      const value = results[i];
      if (typeof value === 'string') live.push(JSON.parse(value) as Session);
      else ended.push(id);
    });
    if (ended.length > 0) await this.#o.redis.hdel(index, ...ended);
    return live.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Ends one session of an account by its id; false when the account has no such live session. */
  async revoke(accountId: string, id: string): Promise<boolean> {
    const index = this.#index(accountId);
    const digest = await this.#o.redis.hget(index, id);
    if (digest === null) return false;
    const deleted = await this.#o.redis.del(this.#keyOfDigest(digest));
    await this.#o.redis.hdel(index, id);
    return deleted > 0;
  }

  /** Ends every session of an account at once; returns how many were live. */
  async revokeAll(accountId: string): Promise<number> {
    const index = this.#index(accountId);
    const digests = Object.values(await this.#o.redis.hgetall(index));
    let ended = 0;
    for (const digest of digests) ended += await this.#o.redis.del(this.#keyOfDigest(digest));
    await this.#o.redis.del(index);
    return ended;
  }
}
