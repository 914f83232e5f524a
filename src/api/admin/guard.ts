/**
 * What stands in front of every admin route: security headers on every admin response (errors
 * included), and limits on authentication failures (per address, per account email) kept in
 * Redis, so that every api process counts the same failures.
 */
import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { BotwireError } from '../../shared/errors.ts';
import type { Redis } from '../../shared/redis.ts';

/** HSTS lifetime: one year, the common preload minimum (seconds). */
export const HSTS_MAX_AGE_S = 31_536_000;

/**
 * Sets `Cache-Control: no-store`, `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`,
 * `X-Frame-Options: DENY` and `Content-Security-Policy: frame-ancestors 'none'` on every admin
 * response, and `Strict-Transport-Security` when the request came over https (directly or as
 * X-Forwarded-Proto says) or `publicBaseUrl` is https.
 */
export function securityHeaders(publicBaseUrl: string): Middleware {
  const httpsBase = publicBaseUrl.startsWith('https://');
  return async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
    if (httpsBase || ctx.protocol === 'https') {
      ctx.set('Strict-Transport-Security', `max-age=${HSTS_MAX_AGE_S}`);
    }
    await next();
  };
}

export interface AuthLimitOptions {
  redis: Redis;
  prefix: string;
  /** Failures allowed per address within the window (count). */
  maxFailures: number;
  /** Wrong passwords allowed per account email within the window (count). @defaultValue maxFailures */
  maxAccountFailures?: number;
  /** The window, from an address's (or email's) first failure (seconds). */
  windowS: number;
}

/**
 * The address failures are counted against: the peer of the TCP connection. X-Forwarded-For is
 * not used: anyone can write it, and a limit keyed on it is no limit.
 */
export function peerAddress(ctx: Context): string {
  return ctx.req.socket.remoteAddress ?? 'unknown';
}

/**
 * Counts authentication failures in Redis, each in a fixed window starting at its first failure:
 * per address (`<prefix>:auth-fail:{<address>}`: wrong bearer tokens, passwords, invite links),
 * past which every admin request from the address is refused, and per account email
 * (`<prefix>:auth-fail-account:{<sha256 of the lower-case email>}`: wrong passwords, counted for
 * unknown emails too, so the limit does not tell which exist), past which that email's sign-in is
 * refused from every address. Refusals are 429 `BW_ERR_AUTH_RATE_LIMITED` with Retry-After. One
 * GET per admin request; a failure costs a SET NX and an INCR per counter in one round trip.
 */
export class AuthLimiter {
  readonly #o: AuthLimitOptions;

  constructor(options: AuthLimitOptions) {
    this.#o = options;
  }

  #key(address: string): string {
    // The address is the hash tag: one address's counter lives on one cluster slot, and addresses
    // spread over the cluster.
    return `${this.#o.prefix}:auth-fail:{${address}}`;
  }

  #accountKey(email: string): string {
    // Hashed: the counter must not keep the email itself in Redis, and its length is bounded.
    const digest = createHash('sha256').update(email.toLowerCase(), 'utf8').digest('hex');
    return `${this.#o.prefix}:auth-fail-account:{${digest}}`;
  }

  async #refuseOver(ctx: Context, key: string, max: number, message: string): Promise<void> {
    const count = Number((await this.#o.redis.get(key)) ?? 0);
    if (count < max) return;
    const ttlMs = await this.#o.redis.pttl(key);
    const retryAfterS = Math.max(1, Math.ceil((ttlMs > 0 ? ttlMs : this.#o.windowS * 1000) / 1000));
    ctx.set('Retry-After', String(retryAfterS));
    throw new BotwireError('BW_ERR_AUTH_RATE_LIMITED', message, {
      details: { retry_after_s: retryAfterS },
    });
  }

  /** Throws 429 when `address` is past the limit. */
  async check(ctx: Context, address: string): Promise<void> {
    await this.#refuseOver(
      ctx,
      this.#key(address),
      this.#o.maxFailures,
      'too many failed admin authentications from this address; try again later',
    );
  }

  /** Throws 429 when the account of `email` (existing or not) is past its limit. */
  async checkAccount(ctx: Context, email: string): Promise<void> {
    await this.#refuseOver(
      ctx,
      this.#accountKey(email),
      this.#o.maxAccountFailures ?? this.#o.maxFailures,
      'too many wrong passwords for this account; try again later',
    );
  }

  /** Records one failure of `address`, and of the account of `email` when given. */
  async fail(address: string, email?: string): Promise<void> {
    // One transaction per counter: the two keys may sit on different cluster slots.
    const keys = [this.#key(address), ...(email ? [this.#accountKey(email)] : [])];
    await Promise.all(
      keys.map((key) =>
        this.#o.redis.multi().set(key, 0, 'EX', this.#o.windowS, 'NX').incr(key).exec(),
      ),
    );
  }

  /** Forgets the wrong passwords of `email` (after a sign-in with the right one). */
  async clearAccount(email: string): Promise<void> {
    await this.#o.redis.del(this.#accountKey(email));
  }
}
