/**
 * Who may call the admin API (docs/accounts.md): the bearer `ADMIN_API_KEY` (the bootstrap owner,
 * actor "admin-key"), a personal token (`Bearer bwp_...`), or a console session cookie (of an
 * account, or of an admin-key sign-in). Sets `ctx.state.principal` and `ctx.state.actor`.
 * Failures are counted per address by the {@link AuthLimiter}; a cookie request that changes
 * something must come from the service's own origin (CSRF defence beside SameSite=Strict).
 */
import type { Context, Middleware } from 'koa';
import { matchesDigest, secretDigest } from '../../shared/crypto.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';
import { accountPrincipal, tokenPrincipal } from './account-principal.ts';
import { AuthLimiter, peerAddress } from './guard.ts';
import { ADMIN_KEY_PRINCIPAL, type Principal } from './principal.ts';
import { SessionStore, type Session } from './session-store.ts';
import { liveToken, TOKEN_PREFIX } from './token-store.ts';

/** The console's session cookie. */
export const SESSION_COOKIE = 'bw_session';

/** Methods that change nothing; every other method with a cookie needs a same-origin `Origin`. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

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

/** The failure limits and the session store of `edge` (all kept in Redis, so cheap to make). */
export function authParts(edge: Edge): { limiter: AuthLimiter; sessions: SessionStore } {
  return {
    limiter: new AuthLimiter({
      redis: edge.redis,
      prefix: edge.prefix,
      maxFailures: edge.authMaxFailures,
      maxAccountFailures: edge.accountMaxFailures,
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
 * The principal of a live session: the admin key's for an admin-key sign-in (sessions from before
 * accounts, without `accountId`, are those too), the account's otherwise. A disabled account's
 * session is ended here too, should its disabling have missed it.
 */
export async function sessionPrincipal(
  edge: Edge,
  sessions: SessionStore,
  session: Session,
): Promise<Principal | undefined> {
  if (!session.accountId) return { ...ADMIN_KEY_PRINCIPAL, actor: session.actor };
  const principal = await accountPrincipal(edge.db, session.accountId);
  if (!principal) await sessions.revokeAll(session.accountId);
  return principal;
}

/**
 * The admin guard. The limit is checked first, for a right key too: otherwise a guesser past the
 * limit would still learn which guess was right. A wrong or missing bearer key or token counts as
 * a failure; a cookie naming no live session is refused without counting (its token is 256 random
 * bits, not guessable, and an expired console must not lock its operator out). A disabled
 * account's session or token is refused with 401 BW_ERR_UNAUTHORIZED: its credential is no longer
 * valid, which is what 401 says (the console then shows the sign-in page).
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
    let principal: Principal | undefined;
    if (header === '' && cookie !== undefined) {
      const session = await sessions.get(cookie);
      principal = session && (await sessionPrincipal(edge, sessions, session));
      if (principal === undefined) {
        throw new BotwireError('BW_ERR_UNAUTHORIZED', 'the console session has ended; sign in');
      }
      if (!SAFE_METHODS.has(ctx.method)) requireOwnOrigin(ctx, edge.publicBaseUrl);
    } else {
      const token = header.startsWith('Bearer ') ? header.slice(7) : undefined;
      if (token?.startsWith(TOKEN_PREFIX)) {
        const live = await liveToken(edge.db, token);
        principal = live && (await tokenPrincipal(edge.db, live));
      } else if (matchesDigest(token, keyDigest)) {
        principal = ADMIN_KEY_PRINCIPAL;
      }
      if (principal === undefined) {
        await limiter.fail(address);
        ctx.set('WWW-Authenticate', 'Bearer');
        throw new BotwireError(
          'BW_ERR_UNAUTHORIZED',
          'a valid admin key or personal token (bearer) is required',
        );
      }
    }
    ctx.state.principal = principal;
    ctx.state.actor = principal.actor;
    await next();
  };
}

/** Whether the cookie must be `Secure`: the request came over https, or the service is https. */
export function secureCookie(ctx: Context, publicBaseUrl: string): boolean {
  return ctx.protocol === 'https' || publicBaseUrl.startsWith('https://');
}
