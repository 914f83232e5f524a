/**
 * Who is calling the admin API, and which bots they may see. Authentication sets
 * `ctx.state.principal`; a request authenticated the older way (the admin key, a console session
 * without an account) has none and counts as an owner.
 */
import type { Context } from 'koa';
import { BotwireError } from '../../shared/errors.ts';

export type Role = 'owner' | 'builder' | 'agent' | 'viewer';

export interface Principal {
  /** "admin-key", "account:<email>" or "token:<token id>@<email>" – what audit rows and flow version rows record */
  actor: string;
  role: Role;
  /** null for the admin key */
  accountId: string | null;
  /** bots an agent is assigned to; 'all' for every other role */
  bots: 'all' | string[];
}

declare module 'koa' {
  interface DefaultState {
    principal?: Principal;
    actor?: string;
  }
}

/** Throws BW_ERR_FORBIDDEN (403) unless the principal may see this bot (agents: assigned bots only). */
export function requireBotAccess(ctx: Context, appId: string): void {
  // No principal: authenticated the older way (admin key), which sees every bot.
  const bots = ctx.state.principal?.bots ?? 'all';
  if (bots === 'all' || bots.includes(appId)) return;
  throw new BotwireError('BW_ERR_FORBIDDEN', 'you are not assigned to this bot');
}
