/**
 * The console's sign-in: `POST /v2/session` exchanges the admin key for a session cookie,
 * `GET /v2/session` says whose session it is and when it ends, `DELETE /v2/session` ends it on the
 * server. See docs/console.md for the cookie and CSRF rules.
 */
import type { Context } from 'koa';
import { Router } from '@koa/router';
import { matchesDigest, secretDigest } from '../../shared/crypto.ts';
import { BotwireError } from '../../shared/errors.ts';
import { readJson } from '../body.ts';
import type { Edge } from '../edge.ts';
import { authParts, requireOwnOrigin, secureCookie, SESSION_COOKIE, sessionToken } from './auth.ts';
import { peerAddress, securityHeaders } from './guard.ts';
import { auditTrail } from '../audit/trail.ts';

/** The actor of every console session until operator accounts exist. */
const CONSOLE_ACTOR = 'console';

/**
 * `Set-Cookie` written by hand: Koa's cookie helper refuses a Secure cookie on a plain-http
 * request, which is what a TLS-terminating proxy without X-Forwarded-Proto sends.
 */
function sessionCookie(
  ctx: Context,
  publicBaseUrl: string,
  value: string,
  maxAgeS: number,
): string {
  const secure = secureCookie(ctx, publicBaseUrl) ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict${secure}`;
}

export function sessionRouter(edge: Edge): Router {
  const router = new Router();
  const { limiter, sessions } = authParts(edge);
  const keyDigest = secretDigest(edge.adminApiKey);
  router.use(securityHeaders(edge.publicBaseUrl));
  // Signing in and out are changes of who may act: recorded like any admin change.
  router.use(auditTrail({ db: edge.db, onLost: edge.auditLost }));

  router.post('/v2/session', async (ctx) => {
    const address = peerAddress(ctx);
    await limiter.check(ctx, address);
    const { json } = await readJson(ctx, edge.bodyLimitBytes, edge.bodyTimeoutMs);
    const result = edge.schemas.validate<{ key: string }>('http/session', json);
    if (!result.ok) {
      throw new BotwireError('BW_ERR_SCHEMA', 'the body must be {"key": "<ADMIN_API_KEY>"}', {
        details: { problems: result.problems },
      });
    }
    if (!matchesDigest(result.value.key, keyDigest)) {
      await limiter.fail(address);
      throw new BotwireError('BW_ERR_UNAUTHORIZED', 'the admin key is wrong');
    }
    const { token } = await sessions.create(CONSOLE_ACTOR);
    ctx.state.actor = CONSOLE_ACTOR;
    ctx.set('Set-Cookie', sessionCookie(ctx, edge.publicBaseUrl, token, edge.consoleSessionTtlS));
    ctx.status = 204;
  });

  router.get('/v2/session', async (ctx) => {
    const session = await sessions.get(sessionToken(ctx));
    if (session === undefined) {
      throw new BotwireError('BW_ERR_UNAUTHORIZED', 'no console session; sign in');
    }
    ctx.body = { actor: session.actor, expires_at: session.expiresAt };
  });

  router.delete('/v2/session', async (ctx) => {
    const token = sessionToken(ctx);
    if (token !== undefined) requireOwnOrigin(ctx, edge.publicBaseUrl);
    const session = await sessions.get(token);
    // No live session: nothing ends, nothing to record.
    if (session === undefined) ctx.state.auditSkip = true;
    else ctx.state.actor = session.actor;
    await sessions.delete(token);
    ctx.set('Set-Cookie', sessionCookie(ctx, edge.publicBaseUrl, '', 0));
    ctx.status = 204;
  });

  return router;
}
