/**
 * Re-sealing every stored channel credential with the current `CREDENTIALS_KEY`, the work of
 * `./scripts/rotate-credentials-key.sh`.
 *
 * Each channel is one statement, so its own transaction: an update that sets the new sealed value
 * only where the row still holds the value that was read (compare and set). Interrupted, the
 * channels done stay done and the rest still open with the previous key; run again, it re-seals
 * only what is not yet sealed with the current key (a second run changes nothing). It never holds
 * a lock across channels, so it runs beside live traffic.
 */
import { CredentialKeys } from '../credential-keys.ts';
import type { Knex } from '../db.ts';
import { BotwireError } from '../errors.ts';

/** A channel the rotation could not open (never a credential). */
export interface RotationFailure {
  channel_id: string;
  app_id: string;
  /** The key the stored value names; null when it names none. */
  key_id: string | null;
  reason: string;
}

export interface RotationResult {
  /** `keyId` of CREDENTIALS_KEY: what every re-sealed channel now names. */
  keyId: string;
  /** Channels re-sealed with the current key by this run. */
  reencrypted: number;
  /** Channels already sealed with the current key in the current format, left alone. */
  alreadyCurrent: number;
  /** Channels no configured key opens, left alone. */
  failed: RotationFailure[];
}

export interface RotationOptions {
  db: Knex;
  credentialsKey: Buffer;
  previousCredentialsKeys?: readonly Buffer[];
  /** Channels read per query. @defaultValue 500 */
  batchSize?: number;
}

interface Row {
  id: string;
  app_id: string;
  credentials: string;
}

/** Times a channel is read again when its credentials changed between the read and the update. */
const ATTEMPTS = 3;

/** Re-seals every channel's credentials with `credentialsKey`; see the file header. */
export async function rotateCredentials(options: RotationOptions): Promise<RotationResult> {
  const { db } = options;
  const keys = new CredentialKeys(options.credentialsKey, options.previousCredentialsKeys);
  const batchSize = options.batchSize ?? 500;
  const result: RotationResult = {
    keyId: keys.currentId,
    reencrypted: 0,
    alreadyCurrent: 0,
    failed: [],
  };
  let after: string | undefined;
  for (;;) {
    const query = db<Row>('channels')
      .select('id', 'app_id', 'credentials')
      .orderBy('id')
      .limit(batchSize);
    if (after !== undefined) void query.where('id', '>', after);
    const rows = await query;
    for (const row of rows) await rotateOne(db, keys, row, result);
    if (rows.length < batchSize) return result;
    after = rows[rows.length - 1]!.id;
  }
}

async function rotateOne(
  db: Knex,
  keys: CredentialKeys,
  first: Row,
  result: RotationResult,
): Promise<void> {
  let row: Row | undefined = first;
  for (let attempt = 1; row && attempt <= ATTEMPTS; attempt += 1) {
    let opened;
    try {
      opened = keys.open(row.credentials, row.id);
    } catch (error) {
      if (!(error instanceof BotwireError)) throw error;
      result.failed.push({
        channel_id: row.id,
        app_id: row.app_id,
        key_id: (error.details?.key_id as string | null | undefined) ?? null,
        reason: error.message,
      });
      return;
    }
    if (opened.current) {
      result.alreadyCurrent += 1;
      return;
    }
    const updated = await db('channels')
      .where({ id: row.id, credentials: row.credentials })
      .update({ credentials: keys.seal(opened.plaintext, row.id) });
    if (updated === 1) {
      result.reencrypted += 1;
      return;
    }
    // Changed since it was read (re-created, or re-sealed by a concurrent run): read it again.
    row = await db<Row>('channels').where({ id: row.id }).first('id', 'app_id', 'credentials');
  }
  if (row) throw new Error(`channel ${row.id} kept changing while it was re-sealed`);
}
