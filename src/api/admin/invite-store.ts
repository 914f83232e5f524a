/**
 * One-time invites (docs/accounts.md): an owner makes one and the console shows its link; whoever
 * opens it sets a name and password (and the email, when the invite named none) and the account
 * exists. The link token is 256 random bits, stored as its hex SHA-256; it works once, until it ends.
 */
import { randomToken } from '../../shared/crypto.ts';
import type { Knex } from '../../shared/db.ts';
import { BotwireError } from '../../shared/errors.ts';
import { assignedBots, insertAccount, type AccountView } from './account-store.ts';
import type { Role } from './principal.ts';
import { tokenHash } from './token-store.ts';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface InviteView {
  id: string;
  role: Role;
  email: string | null;
  bots: string[];
  expires_at: string;
  used_at: string | null;
  account_id: string | null;
  created_by: string;
  created_at: string;
}

interface InviteRow {
  id: string;
  role: Role;
  email: string | null;
  bots: string[];
  expires_at: Date;
  used_at: Date | null;
  account_id: string | null;
  created_by: string;
  created_at: Date;
}

function present(row: InviteRow): InviteView {
  return {
    id: row.id,
    role: row.role,
    email: row.email,
    bots: row.bots,
    expires_at: row.expires_at.toISOString(),
    used_at: row.used_at?.toISOString() ?? null,
    account_id: row.account_id,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}

const COLUMNS = [
  'id',
  'role',
  'email',
  'bots',
  'expires_at',
  'used_at',
  'account_id',
  'created_by',
  'created_at',
];

export interface NewInvite {
  role: Role;
  email?: string;
  bots: string[];
  ttlS: number;
  createdBy: string;
}

/** Makes an invite; the answer holds the link token, never readable again. */
export async function createInvite(
  db: Knex,
  input: NewInvite,
): Promise<InviteView & { token: string }> {
  const token = randomToken(32);
  const bots = assignedBots(input.bots);
  if (bots.length > 0) {
    const known = (await db('bots').whereIn('app_id', bots).pluck('app_id')) as unknown[];
    if (known.length !== bots.length)
      throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'bots names an app id no bot has');
  }
  const [row]: InviteRow[] = await db('invites')
    .insert({
      token_hash: tokenHash(token),
      role: input.role,
      email: input.email ?? null,
      bots,
      expires_at: new Date(Date.now() + input.ttlS * 1000),
      created_by: input.createdBy,
    })
    .returning(COLUMNS);
  return { ...present(row!), token };
}

/** Invites not yet used, newest first. */
export async function listOpenInvites(db: Knex): Promise<InviteView[]> {
  const rows: InviteRow[] = await db('invites')
    .whereNull('used_at')
    .where('expires_at', '>', db.fn.now())
    .orderBy('created_at', 'desc')
    .select(COLUMNS);
  return rows.map(present);
}

/** Withdraws an unused invite (it ends now); false when there is no such invite. */
export async function withdrawInvite(db: Knex, id: string): Promise<boolean> {
  const changed = await db('invites')
    .where({ id })
    .whereNull('used_at')
    .update({ expires_at: db.fn.now() });
  return changed > 0;
}

function invalid(): BotwireError {
  return new BotwireError('BW_ERR_INVITE_INVALID', 'this invite link is unknown, used or expired');
}

/** The open invite of a link token, or throws BW_ERR_INVITE_INVALID. */
export async function openInvite(db: Knex, token: string): Promise<InviteView> {
  if (!TOKEN.test(token)) throw invalid();
  const row: InviteRow | undefined = await db('invites')
    .where({ token_hash: tokenHash(token) })
    .whereNull('used_at')
    .where('expires_at', '>', db.fn.now())
    .first(COLUMNS);
  if (!row) throw invalid();
  return present(row);
}

/**
 * Uses the invite of `token` to make an account, once: the row is locked, so two acceptances at
 * the same moment make one account and the other gets BW_ERR_INVITE_INVALID.
 */
export async function acceptInvite(
  db: Knex,
  token: string,
  input: { name: string; email?: string; passwordHash: string },
): Promise<AccountView> {
  if (!TOKEN.test(token)) throw invalid();
  return db.transaction(async (trx) => {
    const row: InviteRow | undefined = await trx('invites')
      .where({ token_hash: tokenHash(token) })
      .whereNull('used_at')
      .where('expires_at', '>', trx.fn.now())
      .forUpdate()
      .first(COLUMNS);
    if (!row) throw invalid();
    const email = row.email ?? input.email;
    if (email === undefined) {
      throw new BotwireError('BW_ERR_SCHEMA', 'this invite names no email: the body needs one', {
        details: { problems: [{ path: '/email', message: 'is required by this invite' }] },
      });
    }
    const account = await insertAccount(trx, {
      email,
      name: input.name,
      role: row.role,
      passwordHash: input.passwordHash,
      // Bots deleted since the invite was made are left out rather than refusing it.
      bots: (await trx('bots').whereIn('app_id', row.bots).pluck('app_id')) as string[],
      createdBy: row.created_by,
    });
    await trx('invites')
      .where({ id: row.id })
      .update({ used_at: trx.fn.now(), account_id: account.id });
    return account;
  });
}
