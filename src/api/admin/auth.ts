/**
 * Who may call the admin API: the bearer `ADMIN_API_KEY` (actor "admin-key") or a console session
 * cookie (actor "console"). Failures are counted per address by the {@link AuthLimiter}; a cookie
 * request that changes something must come from the service's own origin (CSRF defence beside
 * SameSite=Strict).
 */
import type { Context, Middleware } from 'koa';
import { matchesDigest, secretDigest } from '../../shared/crypto.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';
import { AuthLimiter, peerAddress } from './guard.ts';
import { SessionStore } from './session-store.ts';

/** The console's session cookie. */
export const SESSION_COOKIE = 'bw_session';

/** Methods that change nothing; every other method with a cookie needs a same-origin `Origin`. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'koa' {
  interface DefaultState {
    /** Who made an admin call: "admin-key" (bearer) or "console" (session cookie). */
    actor?: string;
  }
}

/** The session token a request carries in its cookie, if any. */
export function sessionToken(ctx: Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}

/**
 * Origins a cookie request may come from: the origin of PUBLIC_BASE_URL, and the origin the
 * request was addressed to (scheme and Host as this edge sees them), so a console opened on
 * `http://localhost:8000` works while PUBLIC_BASE_URL names a public tunnel. A cross-site page
 * cannot forge either: the browser writes `Origin` and `Host` itself.
 */
export function requireOwnOrigin(ctx: Context, publicBaseUrl: string): void {
  // Not ctx.origin: Koa 3 answers the Origin header there.
  const origin = ctx.get('origin');
  if (
    origin !== '' &&
    (origin === new URL(publicBaseUrl).origin || origin === `${ctx.protocol}://${ctx.host}`)
  )
    return;
  throw new BotwireError(
    'BW_ERR_ORIGIN_REFUSED',
    "a console request that changes something must come from the service's own origin",
  );
}

/** The failure limit and the session store of `edge` (both kept in Redis, so cheap to make). */
export function authParts(edge: Edge): { limiter: AuthLimiter; sessions: SessionStore } {
  return {
    limiter: new AuthLimiter({
      redis: edge.redis,
      prefix: edge.prefix,
      maxFailures: edge.authMaxFailures,
      windowS: edge.authFailureWindowS,
    }),
    sessions: new SessionStore({
      redis: edge.redis,
      prefix: edge.prefix,
      ttlS: edge.consoleSessionTtlS,
    }),
  };
}

/**
 * The admin guard. The limit is checked first, for a right key too: otherwise a guesser past the
 * limit would still learn which guess was right. A wrong or missing bearer key counts as a
 * failure; a cookie naming no live session is refused without counting (its token is 256 random
 * bits, not guessable, and an expired console must not lock its operator out).
 */
export function adminAuth(edge: Edge): Middleware {
  const { limiter, sessions } = authParts(edge);
  // Compared as digests: the key is the operator's choice, so even its length stays private.
  const keyDigest = secretDigest(edge.adminApiKey);
  return async (ctx, next) => {
    const address = peerAddress(ctx);
    await limiter.check(ctx, address);
    const header = ctx.get('authorization');
    const cookie = sessionToken(ctx);
    if (header === '' && cookie !== undefined) {
      const session = await sessions.get(cookie);
      if (session === undefined) {
        throw new BotwireError('BW_ERR_UNAUTHORIZED', 'the console session has ended; sign in');
      }
      if (!SAFE_METHODS.has(ctx.method)) requireOwnOrigin(ctx, edge.publicBaseUrl);
      ctx.state.actor = session.actor;
      await next();
      return;
    }
    const token = header.startsWith('Bearer ') ? header.slice(7) : undefined;
    if (!matchesDigest(token, keyDigest)) {
      await limiter.fail(address);
      ctx.set('WWW-Authenticate', 'Bearer');
      throw new BotwireError('BW_ERR_UNAUTHORIZED', 'a valid admin bearer token is required');
    }
    ctx.state.actor = 'admin-key';
    await next();
  };
}

/** Whether the cookie must be `Secure`: the request came over https, or the service is https. */
export function secureCookie(ctx: Context, publicBaseUrl: string): boolean {
  return ctx.protocol === 'https' || publicBaseUrl.startsWith('https://');
}
