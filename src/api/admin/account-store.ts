/**
 * Accounts in Postgres (migration 20261126090000_accounts): the rows, the bots an agent is
 * assigned to, and the shapes the admin API answers with. Emails are unique without regard to
 * case (index on lower(email)).
 */
import type { Knex } from '../../shared/db.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { Role } from './principal.ts';

export interface AccountRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string;
  disabled_at: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

/** An account as the API shows it: never its password hash. */
export interface AccountView {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  disabled_at: string | null;
  bots: string[];
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** What a new account is made of (password already hashed). */
export interface NewAccount {
  email: string;
  name: string;
  role: Role;
  passwordHash: string;
  bots: string[];
  createdBy: string;
}

export interface AccountPatch {
  name?: string;
  role?: Role;
  disabled?: boolean;
  bots?: string[];
  passwordHash?: string;
}

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';

/** Unique violations become 409 BW_ERR_CONFLICT; unknown bots 404 BW_ERR_UNKNOWN_BOT. */
export function accountWriteError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === UNIQUE_VIOLATION)
    return new BotwireError('BW_ERR_CONFLICT', 'an account with this email already exists');
  if (code === FOREIGN_KEY_VIOLATION)
    return new BotwireError('BW_ERR_UNKNOWN_BOT', 'bots names an app id no bot has');
  return error;
}

export function presentAccount(row: AccountRow, bots: string[]): AccountView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    bots,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The account of `email` (any case), or undefined. */
export async function accountByEmail(db: Knex, email: string): Promise<AccountRow | undefined> {
  return db<AccountRow>('accounts').whereRaw('lower(email) = lower(?)', [email]).first();
}

export async function accountById(db: Knex, id: string): Promise<AccountRow | undefined> {
  return db<AccountRow>('accounts').where({ id }).first();
}

/** The bots each of `ids` is assigned to (every id is a key, with [] when none). */
export async function botsOf(db: Knex, ids: string[]): Promise<Map<string, string[]>> {
  const rows: { account_id: string; app_id: string }[] = await db('account_bots')
    .whereIn('account_id', ids)
    .orderBy('app_id')
    .select('account_id', 'app_id');
  const map = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const row of rows) map.get(row.account_id)?.push(row.app_id);
  return map;
}

/** The app ids of an assignment as stored: lowercase, each once, in the order given. */
export function assignedBots(bots: string[]): string[] {
  return [...new Set(bots.map((b) => b.toLowerCase()))];
}

async function setBots(trx: Knex, accountId: string, bots: string[]): Promise<void> {
  await trx('account_bots').where({ account_id: accountId }).delete();
  const unique = assignedBots(bots);
  if (unique.length > 0)
    await trx('account_bots').insert(unique.map((app_id) => ({ account_id: accountId, app_id })));
}

/** Makes an account in `db` (a transaction when the caller has one). */
export async function insertAccount(db: Knex, input: NewAccount): Promise<AccountView> {
  try {
    return await db.transaction(async (trx) => {
      const insert = trx('accounts')
        .insert({
          email: input.email,
          name: input.name,
          role: input.role,
          password_hash: input.passwordHash,
          created_by: input.createdBy,
        })
        .returning('*');
      const [row] = (await insert) as AccountRow[];
      await setBots(trx, row!.id, input.bots);
      return presentAccount(row!, assignedBots(input.bots).sort());
    });
  } catch (error) {
    throw accountWriteError(error);
  }
}

export async function listAccounts(db: Knex): Promise<AccountView[]> {
  const query = db('accounts').orderBy('created_at').orderBy('id');
  const rows = (await query) as AccountRow[];
  const bots = await botsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => presentAccount(row, bots.get(row.id) ?? []));
}

export async function getAccount(db: Knex, id: string): Promise<AccountView | undefined> {
  const row = await accountById(db, id);
  if (!row) return undefined;
  return presentAccount(row, (await botsOf(db, [id])).get(id) ?? []);
}

/**
 * Applies `patch`; returns the account before and after, or undefined when there is none.
 * `disabled: true` keeps the first disabling time; `false` clears it.
 */
export async function updateAccount(
  db: Knex,
  id: string,
  patch: AccountPatch,
): Promise<{ before: AccountView; after: AccountView } | undefined> {
  try {
    return await db.transaction(async (trx) => {
      const row = await trx<AccountRow>('accounts').where({ id }).forUpdate().first();
      if (!row) return undefined;
      const before = presentAccount(row, (await botsOf(trx, [id])).get(id) ?? []);
      const changes: Record<string, unknown> = { updated_at: trx.fn.now() };
      if (patch.name !== undefined) changes.name = patch.name;
      if (patch.role !== undefined) changes.role = patch.role;
      if (patch.passwordHash !== undefined) changes.password_hash = patch.passwordHash;
      if (patch.disabled === true && row.disabled_at === null) changes.disabled_at = trx.fn.now();
      if (patch.disabled === false) changes.disabled_at = null;
      const update = trx('accounts').where({ id }).update(changes).returning('*');
      const [updated] = (await update) as AccountRow[];
      if (patch.bots !== undefined) await setBots(trx, id, patch.bots);
      // The bots are read again only when they changed.
      const bots =
        patch.bots === undefined ? before.bots : ((await botsOf(trx, [id])).get(id) ?? []);
      const after = presentAccount(updated!, bots);
      return { before, after };
    });
  } catch (error) {
    throw accountWriteError(error);
  }
}
