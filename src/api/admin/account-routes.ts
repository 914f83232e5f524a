/**
 * Accounts and invites for owners (docs/accounts.md): list, make, read and change accounts (role,
 * name, password, disabled, assigned bots), see and end an account's sessions, make and withdraw
 * invite links. Disabling an account ends its sessions here and now; its tokens stop because
 * every token check joins the account.
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';
import {
  accountById,
  getAccount,
  type AccountView,
  insertAccount,
  listAccounts,
  updateAccount,
  type AccountPatch,
} from './account-store.ts';
import { authParts } from './auth.ts';
import { createInvite, listOpenInvites, withdrawInvite } from './invite-store.ts';
import { principalOf, type Role } from './principal.ts';
import { presentSession } from './present-session.ts';
import { UUID } from '../ids.ts';
import type { ReadBody } from '../body.ts';

function idOf(ctx: Context & { params: Record<string, string> }, what: string): string {
  const id = ctx.params.id ?? '';
  if (!UUID.test(id)) throw new BotwireError('BW_ERR_NOT_FOUND', `no ${what} has this id`);
  return id;
}

/** The link the console shows for an invite: the console's accept page. */
export function inviteUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/console/invite/${token}`;
}

/** What the audit log keeps of an account: who it is and what it may do, never its password. */
function accountNote(account: AccountView): Record<string, unknown> {
  const { email, name, role, disabled, bots } = account;
  return { email, name, role, disabled, bots };
}

/** The account id of the path, once its row exists (one read, without its bots); 404 otherwise. */
async function existingAccountId(
  ctx: Context & { params: Record<string, string> },
  edge: Edge,
): Promise<string> {
  const id = idOf(ctx, 'account');
  if (!(await accountById(edge.db, id)))
    throw new BotwireError('BW_ERR_NOT_FOUND', 'no account has this id');
  return id;
}

export function accountRoutes(router: Router, edge: Edge, readBody: ReadBody): void {
  const { sessions } = authParts(edge);

  router.get('/v2/accounts', async (ctx) => {
    ctx.body = { items: await listAccounts(edge.db) };
  });

  router.post('/v2/accounts', async (ctx) => {
    const input = await readBody<{
      email: string;
      name: string;
      role: Role;
      password: string;
      bots?: string[];
    }>(ctx, 'http/create-account');
    const { email, name, role, bots } = input;
    ctx.state.audit = { after: { email, name, role, bots: bots ?? [] } };
    ctx.status = 201;
    ctx.body = await insertAccount(edge.db, {
      email: input.email,
      name: input.name,
      role: input.role,
      passwordHash: await edge.passwords.hash(input.password),
      bots: input.bots ?? [],
      createdBy: principalOf(ctx).actor,
    });
  });

  router.get('/v2/accounts/:id', async (ctx) => {
    const account = await getAccount(edge.db, idOf(ctx, 'account'));
    if (!account) throw new BotwireError('BW_ERR_NOT_FOUND', 'no account has this id');
    ctx.body = account;
  });

  router.patch('/v2/accounts/:id', async (ctx) => {
    const id = idOf(ctx, 'account');
    const input = await readBody<Omit<AccountPatch, 'passwordHash'> & { password?: string }>(
      ctx,
      'http/patch-account',
    );
    const { password, ...rest } = input;
    const patch: AccountPatch = {
      ...rest,
      ...(password !== undefined ? { passwordHash: await edge.passwords.hash(password) } : {}),
    };
    const changed = await updateAccount(edge.db, id, patch);
    if (!changed) throw new BotwireError('BW_ERR_NOT_FOUND', 'no account has this id');
    // A disabled account, or one whose password an owner reset, is signed out everywhere now.
    if (changed.after.disabled || password !== undefined) await sessions.revokeAll(id);
    ctx.state.audit = {
      before: accountNote(changed.before),
      after: { ...accountNote(changed.after), sign_in_reset: password !== undefined },
    };
    ctx.body = changed.after;
  });

  router.get('/v2/accounts/:id/sessions', async (ctx) => {
    const id = await existingAccountId(ctx, edge);
    ctx.body = { items: (await sessions.list(id)).map((s) => presentSession(s)) };
  });

  router.delete('/v2/accounts/:id/sessions', async (ctx) => {
    const id = await existingAccountId(ctx, edge);
    const ended = await sessions.revokeAll(id);
    ctx.state.audit = { after: { sessions_ended: ended } };
    ctx.body = { ended };
  });

  router.get('/v2/invites', async (ctx) => {
    ctx.body = { items: await listOpenInvites(edge.db) };
  });

  router.post('/v2/invites', async (ctx) => {
    const input = await readBody<{ role: Role; email?: string; bots?: string[] }>(
      ctx,
      'http/create-invite',
    );
    const { token, ...invite } = await createInvite(edge.db, {
      role: input.role,
      ...(input.email !== undefined ? { email: input.email } : {}),
      bots: input.bots ?? [],
      ttlS: edge.inviteTtlS,
      createdBy: principalOf(ctx).actor,
    });
    ctx.state.audit = {
      after: { role: input.role, email: input.email ?? null, bots: input.bots ?? [] },
    };
    ctx.status = 201;
    ctx.body = { ...invite, token, url: inviteUrl(edge.publicBaseUrl, token) };
  });

  router.delete('/v2/invites/:id', async (ctx) => {
    if (!(await withdrawInvite(edge.db, idOf(ctx, 'open invite'))))
      throw new BotwireError('BW_ERR_NOT_FOUND', 'no open invite has this id');
    ctx.status = 204;
  });
}
