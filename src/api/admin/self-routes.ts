/**
 * What every signed-in principal may do about itself (docs/accounts.md): `GET /v2/me`, its
 * console sessions (list, end one), and its personal API tokens (make: shown once; list; revoke).
 * The admin key is no account: it has no sessions listed here and no tokens.
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';
import { accountById } from './account-store.ts';
import { authParts, sessionToken } from './auth.ts';
import { PERMISSIONS, principalMay } from './permissions.ts';
import { presentSession } from './present-session.ts';
import { principalGrantable, principalOf, type Role } from './principal.ts';
import { createToken, listTokens, revokeToken } from './token-store.ts';
import { UUID } from '../ids.ts';
import type { ReadBody } from '../body.ts';

function accountIdOf(ctx: Context): string {
  const { accountId } = principalOf(ctx);
  if (accountId === null) {
    throw new BotwireError(
      'BW_ERR_UNSUPPORTED',
      'the admin key is no account: it has no personal tokens; sign in with an account',
    );
  }
  return accountId;
}

export function selfRoutes(router: Router, edge: Edge, readBody: ReadBody): void {
  const { sessions } = authParts(edge);

  router.get('/v2/me', async (ctx) => {
    const principal = principalOf(ctx);
    // Its email and name only: its bots are the principal's already.
    const account = principal.accountId
      ? await accountById(edge.db, principal.accountId)
      : undefined;
    ctx.body = {
      actor: principal.actor,
      role: principal.role,
      account_id: principal.accountId,
      email: account?.email ?? null,
      name: account?.name ?? 'Admin key',
      bots: principal.bots === 'all' ? null : principal.bots,
      // What the console may show: the same table the API enforces, for this caller.
      may: Object.keys(PERMISSIONS).filter((key) => principalMay(principal, key)),
    };
  });

  router.get('/v2/sessions', async (ctx) => {
    const { accountId } = principalOf(ctx);
    const current = await sessions.get(sessionToken(ctx));
    const list = accountId === null ? [] : await sessions.list(accountId);
    ctx.body = { items: list.map((s) => presentSession(s, current?.id)) };
  });

  router.delete('/v2/sessions/:id', async (ctx) => {
    const accountId = accountIdOf(ctx);
    const id = ctx.params.id ?? '';
    if (!UUID.test(id) || !(await sessions.revoke(accountId, id)))
      throw new BotwireError('BW_ERR_NOT_FOUND', 'no live session of this account has this id');
    ctx.status = 204;
  });

  router.get('/v2/tokens', async (ctx) => {
    ctx.body = { items: await listTokens(edge.db, accountIdOf(ctx)) };
  });

  router.post('/v2/tokens', async (ctx) => {
    const accountId = accountIdOf(ctx);
    const input = await readBody<{ name: string; role?: Role }>(ctx, 'http/create-token');
    const principal = principalOf(ctx);
    // A token held within its demoted account's role defaults to that (narrower) role.
    const own = principal.within ?? principal.role;
    const role = input.role ?? own;
    if (!principalGrantable(principal).includes(role)) {
      const who = principal.within
        ? `this ${principal.role} token, its account now a ${principal.within},`
        : `a ${own}`;
      throw new BotwireError('BW_ERR_FORBIDDEN', `${who} may not make a ${role} token`);
    }
    ctx.state.audit = { after: { name: input.name, role } };
    ctx.status = 201;
    ctx.body = await createToken(edge.db, accountId, input.name, role);
  });

  router.delete('/v2/tokens/:id', async (ctx) => {
    const accountId = accountIdOf(ctx);
    const id = ctx.params.id ?? '';
    if (!UUID.test(id) || !(await revokeToken(edge.db, accountId, id)))
      throw new BotwireError('BW_ERR_NOT_FOUND', 'this account has no token with this id');
    ctx.status = 204;
  });
}
