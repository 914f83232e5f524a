/**
 * Who an admin request acts as (docs/accounts.md): the admin key (the bootstrap owner), an
 * account through its console session, or an account's personal token. Routes read
 * `ctx.state.principal`; `ctx.state.actor` keeps naming it for code that records who did what.
 */
import type { Context } from 'koa';
import { BotwireError } from '../../shared/errors.ts';

export type Role = 'owner' | 'builder' | 'agent' | 'viewer';

/** Every role, most powerful first. */
export const ROLES: readonly Role[] = ['owner', 'builder', 'agent', 'viewer'];

export interface Principal {
  /** "admin-key", "account:<email>" or "token:<token id>@<email>" – what audit rows and flow version rows record */
  actor: string;
  role: Role;
  /** null for the admin key */
  accountId: string | null;
  /** bots an agent is assigned to; 'all' for every other role */
  bots: 'all' | string[];
  /**
   * A second role the principal is held to: a personal token whose account was demoted since
   * acts within both its own role and its account's, so each check must pass for both.
   */
  within?: Role;
}

declare module 'koa' {
  interface DefaultState {
    principal?: Principal;
    actor?: string;
  }
}

/** The admin key's principal: the bootstrap owner. */
export const ADMIN_KEY_PRINCIPAL: Principal = {
  actor: 'admin-key',
  role: 'owner',
  accountId: null,
  bots: 'all',
};

/**
 * The roles an account of `role` may give a token of its own: its role or less. An agent's
 * access (assigned bots only) is not a subset of a viewer's (every bot, read only), nor the other
 * way round, so each keeps to itself.
 */
export function grantableRoles(role: Role): Role[] {
  if (role === 'owner') return [...ROLES];
  if (role === 'builder') return ['builder', 'viewer'];
  return [role];
}

/**
 * The roles `principal` may give a token: those its role may grant, and, for a token held within
 * its demoted account's role, those that role may grant too, so a demotion counts at once.
 */
export function principalGrantable(principal: Principal): Role[] {
  const { within } = principal;
  const own = grantableRoles(principal.role);
  return within === undefined ? own : own.filter((r) => grantableRoles(within).includes(r));
}

/** The principal of the request; the admin guard set it, so its absence is a wiring fault. */
export function principalOf(ctx: Context): Principal {
  const principal = ctx.state.principal;
  if (!principal) throw new BotwireError('BW_ERR_UNAUTHORIZED', 'no principal on the request');
  return principal;
}

/** Whether a principal with these bots may see bot `appId` (agents: assigned bots only). */
export function mayAccessBot(bots: Principal['bots'], appId: string): boolean {
  return bots === 'all' || bots.includes(appId.toLowerCase()) || bots.includes(appId);
}

/** Throws BW_ERR_FORBIDDEN (403) unless the principal may see this bot (agents: assigned bots only). */
export function requireBotAccess(ctx: Context, appId: string): void {
  if (mayAccessBot(ctx.state.principal?.bots ?? 'all', appId)) return;
  throw new BotwireError('BW_ERR_FORBIDDEN', 'this account is not assigned to this bot');
}
