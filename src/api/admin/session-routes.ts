/**
 * The console's sign-in (docs/accounts.md): `POST /v2/session` exchanges an account's email and
 * password, or the admin key, for a session cookie; `GET /v2/session` says whose session it is
 * and when it ends; `DELETE /v2/session` ends it on the server. Also the two routes an invited
 * person uses before having an account: `GET /v2/invites/<token>/accept` (what the link offers)
 * and `POST /v2/invites/<token>/accept`. See docs/console.md for the cookie and CSRF rules.
 */
import type { Context } from 'koa';
import { Router } from '@koa/router';
import { matchesDigest, secretDigest } from '../../shared/crypto.ts';
import { BotwireError } from '../../shared/errors.ts';
import { readJson, refuseUnstorable } from '../body.ts';
import type { Edge } from '../edge.ts';
import { accountByEmail } from './account-store.ts';
import {
  authParts,
  requireOwnOrigin,
  secureCookie,
  SESSION_COOKIE,
  sessionPrincipal,
  sessionToken,
} from './auth.ts';
import { peerAddress, securityHeaders } from './guard.ts';
import { auditTrail } from '../audit/trail.ts';
import { acceptInvite, openInvite } from './invite-store.ts';

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

type SignIn = { key: string } | { email: string; password: string };

async function validBody<T>(ctx: Context, edge: Edge, schema: string, shape: string): Promise<T> {
  const read = await readJson(ctx, edge.bodyLimitBytes, edge.bodyTimeoutMs);
  // The email is looked up and the name stored in Postgres, as an admin body is.
  refuseUnstorable(read);
  const result = edge.schemas.validate<T>(schema, read.json);
  if (!result.ok) {
    throw new BotwireError('BW_ERR_SCHEMA', `the body must be ${shape}`, {
      details: { problems: result.problems },
    });
  }
  return result.value;
}

export function sessionRouter(edge: Edge): Router {
  const router = new Router();
  const { limiter, sessions } = authParts(edge);
  const keyDigest = secretDigest(edge.adminApiKey);
  router.use(securityHeaders(edge.publicBaseUrl));
  // Signing in and out are changes of who may act: recorded like any admin change.
  router.use(auditTrail({ db: edge.db, onLost: edge.auditLost }));

  /**
   * Email and password: the address limit, then the account limit, then one key derivation
   * whether or not the email exists (a dummy hash otherwise), so neither the answer nor its time
   * tells which emails have accounts. A wrong password counts for the address and the email.
   */
  router.post('/v2/session', async (ctx) => {
    const address = peerAddress(ctx);
    await limiter.check(ctx, address);
    const input = await validBody<SignIn>(
      ctx,
      edge,
      'http/session',
      '{"email", "password"} or {"key": "<ADMIN_API_KEY>"}',
    );
    let identity: { actor: string; accountId: string | null };
    if ('key' in input) {
      if (!matchesDigest(input.key, keyDigest)) {
        await limiter.fail(address);
        throw new BotwireError('BW_ERR_UNAUTHORIZED', 'the admin key is wrong');
      }
      identity = { actor: 'admin-key', accountId: null };
    } else {
      await limiter.checkAccount(ctx, input.email);
      const account = await accountByEmail(edge.db, input.email);
      const right = await edge.passwords.verify(input.password, account?.password_hash);
      if (!right || !account) {
        await limiter.fail(address, input.email);
        throw new BotwireError('BW_ERR_UNAUTHORIZED', 'the email or password is wrong');
      }
      if (account.disabled_at !== null) {
        throw new BotwireError('BW_ERR_UNAUTHORIZED', 'this account is disabled');
      }
      await limiter.clearAccount(input.email);
      identity = { actor: `account:${account.email}`, accountId: account.id };
    }
    const { token } = await sessions.create({
      ...identity,
      address,
      userAgent: ctx.get('user-agent'),
    });
    ctx.state.actor = identity.actor;
    ctx.set('Set-Cookie', sessionCookie(ctx, edge.publicBaseUrl, token, edge.consoleSessionTtlS));
    ctx.status = 204;
  });

  router.get('/v2/session', async (ctx) => {
    const session = await sessions.get(sessionToken(ctx));
    const principal = session && (await sessionPrincipal(edge, sessions, session));
    if (session === undefined || principal === undefined) {
      throw new BotwireError('BW_ERR_UNAUTHORIZED', 'no console session; sign in');
    }
    ctx.body = {
      id: session.id,
      actor: principal.actor,
      role: principal.role,
      account_id: principal.accountId,
      expires_at: session.expiresAt,
    };
  });

  router.delete('/v2/session', async (ctx) => {
    const token = sessionToken(ctx);
    if (token !== undefined) requireOwnOrigin(ctx, edge.publicBaseUrl);
    const session = await sessions.delete(token);
    // No live session: nothing ended, nothing to record.
    if (session === undefined) ctx.state.auditSkip = true;
    else ctx.state.actor = session.actor;
    ctx.set('Set-Cookie', sessionCookie(ctx, edge.publicBaseUrl, '', 0));
    ctx.status = 204;
  });

  /** An unknown, used or expired link counts as a failure of the address, as a wrong key does. */
  const inviteOf = async (ctx: Context, token: string) => {
    const address = peerAddress(ctx);
    await limiter.check(ctx, address);
    try {
      return await openInvite(edge.db, token);
    } catch (error) {
      await limiter.fail(address);
      throw error;
    }
  };

  router.get('/v2/invites/:token/accept', async (ctx) => {
    const invite = await inviteOf(ctx, ctx.params.token ?? '');
    ctx.body = { role: invite.role, email: invite.email, expires_at: invite.expires_at };
  });

  router.post('/v2/invites/:token/accept', async (ctx) => {
    const token = ctx.params.token ?? '';
    await inviteOf(ctx, token);
    const input = await validBody<{ name: string; password: string; email?: string }>(
      ctx,
      edge,
      'http/accept-invite',
      '{"name", "password" (12 characters or more), "email"?}',
    );
    const account = await acceptInvite(edge.db, token, {
      name: input.name,
      ...(input.email !== undefined ? { email: input.email } : {}),
      passwordHash: await edge.passwords.hash(input.password),
    });
    // The new account made this change: the audit row names it.
    ctx.state.actor = `account:${account.email}`;
    ctx.state.audit = { after: { email: account.email, role: account.role } };
    ctx.status = 201;
    ctx.body = account;
  });

  return router;
}
