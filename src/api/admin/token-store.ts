/**
 * Personal API tokens (docs/accounts.md): `bwp_` and 43 base64url characters (256 random bits),
 * shown once when made; only their hex SHA-256 is stored. A token acts with its own role, never
 * more than its account's role now, and stops with its revocation or its account's disabling.
 */
import { createHash } from 'node:crypto';
import { randomToken } from '../../shared/crypto.ts';
import type { Knex } from '../../shared/db.ts';
import type { Role } from './principal.ts';

/** What every personal token starts with: tells it from the admin key at a glance (and in scans). */
export const TOKEN_PREFIX = 'bwp_';

const TOKEN = /^bwp_[A-Za-z0-9_-]{43}$/;

/** Hex SHA-256: 256-bit random tokens need no slow hash (nothing to guess offline). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export interface TokenView {
  id: string;
  name: string;
  role: Role;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

interface TokenRow {
  id: string;
  account_id: string;
  name: string;
  role: Role;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

function present(row: TokenRow): TokenView {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

const COLUMNS = ['id', 'account_id', 'name', 'role', 'created_at', 'last_used_at', 'revoked_at'];

/** Makes a token; the answer holds the token itself, which is never readable again. */
export async function createToken(
  db: Knex,
  accountId: string,
  name: string,
  role: Role,
): Promise<TokenView & { token: string }> {
  const token = `${TOKEN_PREFIX}${randomToken(32)}`;
  const [row]: TokenRow[] = await db('api_tokens')
    .insert({ account_id: accountId, name, role, token_hash: tokenHash(token) })
    .returning(COLUMNS);
  return { ...present(row!), token };
}

/** The tokens of an account, newest first, revoked ones included. */
export async function listTokens(db: Knex, accountId: string): Promise<TokenView[]> {
  const rows: TokenRow[] = await db('api_tokens')
    .where({ account_id: accountId })
    .orderBy('created_at', 'desc')
    .select(COLUMNS);
  return rows.map(present);
}

/** Revokes a token of `accountId`; false when it has no such token. Revoking twice keeps the first time. */
export async function revokeToken(db: Knex, accountId: string, id: string): Promise<boolean> {
  const row: { id: string } | undefined = await db('api_tokens')
    .where({ id, account_id: accountId })
    .first('id');
  if (!row) return false;
  await db('api_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  return true;
}

/** What a live token acts as; undefined for an unknown, revoked or malformed token or a disabled account. */
export interface LiveToken {
  id: string;
  role: Role;
  accountId: string;
  accountRole: Role;
  email: string;
}

/** Last use is written at most this often per token: a busy script must not write on every call (ms). */
const LAST_USED_RESOLUTION_S = 60;

export async function liveToken(db: Knex, token: string): Promise<LiveToken | undefined> {
  if (!TOKEN.test(token)) return undefined;
  type Row = { id: string; role: Role; account_id: string; account_role: Role; email: string };
  const row: Row | undefined = await db('api_tokens as t')
    .join('accounts as a', 'a.id', 't.account_id')
    .where('t.token_hash', tokenHash(token))
    .whereNull('t.revoked_at')
    .whereNull('a.disabled_at')
    .first('t.id', 't.role', 't.account_id', 'a.role as account_role', 'a.email');
  if (!row) return undefined;
  await db('api_tokens')
    .where({ id: row.id })
    .where((q) => {
      void q
        .whereNull('last_used_at')
        .orWhereRaw(`last_used_at < now() - interval '${LAST_USED_RESOLUTION_S} seconds'`);
    })
    .update({ last_used_at: db.fn.now() });
  return {
    id: row.id,
    role: row.role,
    accountId: row.account_id,
    accountRole: row.account_role,
    email: row.email,
  };
}
