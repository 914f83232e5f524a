/**
 * What stands in front of every admin route: security headers on every admin response (errors
 * included), and a per-address limit on bearer-token failures kept in Redis, so that every api
 * process counts the same failures.
 */
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
  /** The window, from an address's first failure (seconds). */
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
 * Counts bearer-token failures per address in Redis (`<prefix>:auth-fail:{<address>}`, a fixed
 * window starting at the first failure) and refuses every admin request from an address past the
 * limit with 429 `BW_ERR_AUTH_RATE_LIMITED` and Retry-After. One GET per admin request; a failure
 * costs a SET NX and an INCR in one round trip.
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

  /** Throws 429 when `address` is past the limit. */
  async check(ctx: Context, address: string): Promise<void> {
    const key = this.#key(address);
    const count = Number((await this.#o.redis.get(key)) ?? 0);
    if (count < this.#o.maxFailures) return;
    const ttlMs = await this.#o.redis.pttl(key);
    const retryAfterS = Math.max(1, Math.ceil((ttlMs > 0 ? ttlMs : this.#o.windowS * 1000) / 1000));
    ctx.set('Retry-After', String(retryAfterS));
    throw new BotwireError(
      'BW_ERR_AUTH_RATE_LIMITED',
      'too many failed admin authentications from this address; try again later',
      { details: { retry_after_s: retryAfterS } },
    );
  }

  /** Records one failure of `address`. */
  async fail(address: string): Promise<void> {
    const key = this.#key(address);
    await this.#o.redis.multi().set(key, 0, 'EX', this.#o.windowS, 'NX').incr(key).exec();
  }
}
