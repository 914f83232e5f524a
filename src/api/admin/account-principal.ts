/**
 * The principal of an account's session or personal token, read from Postgres on every request:
 * a role change, a bot assignment or a disabling counts from the next call, in every api process.
 */
import type { Knex } from '../../shared/db.ts';
import { botsOf } from './account-store.ts';
import { grantableRoles, type Principal, type Role } from './principal.ts';
import type { LiveToken } from './token-store.ts';

async function botsFor(db: Knex, accountId: string, role: Role): Promise<Principal['bots']> {
  if (role !== 'agent') return 'all';
  return (await botsOf(db, [accountId])).get(accountId) ?? [];
}

/** The principal of an enabled account; undefined when it is disabled or gone. */
export async function accountPrincipal(
  db: Knex,
  accountId: string,
): Promise<Principal | undefined> {
  const row: { id: string; email: string; role: Role } | undefined = await db('accounts')
    .where({ id: accountId })
    .whereNull('disabled_at')
    .first('id', 'email', 'role');
  if (!row) return undefined;
  return {
    actor: `account:${row.email}`,
    role: row.role,
    accountId: row.id,
    bots: await botsFor(db, row.id, row.role),
  };
}

/**
 * The principal of a live token: its own role while the account may still grant it; otherwise
 * (the account was demoted since the token was made) its own role within the account's, so it
 * may do only what both may: an owner's agent token, its owner now a viewer, reads its assigned
 * bots and acts on nothing, never every bot as the viewer it is not.
 */
export async function tokenPrincipal(db: Knex, token: LiveToken): Promise<Principal> {
  const within = grantableRoles(token.accountRole).includes(token.role)
    ? undefined
    : token.accountRole;
  const agent = token.role === 'agent' || within === 'agent';
  return {
    actor: `token:${token.id}@${token.email}`,
    role: token.role,
    ...(within === undefined ? {} : { within }),
    accountId: token.accountId,
    bots: await botsFor(db, token.accountId, agent ? 'agent' : token.role),
  };
}
