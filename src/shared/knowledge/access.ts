/**
 * Which bots may read a collection: its owner bot, or every bot when it is shared (see
 * migrations/20261124165824_collection_ownership.ts and docs/knowledge.md).
 */
import type { Knex } from '../db.ts';
import { BotwireError } from '../errors.ts';

/** A collection's ownership as the admin API shows and sets it. */
export interface Ownership {
  /** The bot that may read the collection; null for none. */
  owner_app_id: string | null;
  /** Whether every bot may read it. */
  shared: boolean;
}

/**
 * Refuses a bot's read of a collection it may not read. A collection that does not exist passes
 * (the search says it is not found, as for every caller).
 *
 * @throws BotwireError `BW_ERR_COLLECTION_FORBIDDEN` when the collection exists, is not shared
 *   and is owned by another bot or by none.
 */
export async function checkBotMayRead(db: Knex, collection: string, appId: string): Promise<void> {
  const row = await db<Ownership & { name: string }>('collections')
    .where({ name: collection })
    .first('owner_app_id', 'shared');
  if (!row || row.shared || row.owner_app_id === appId) return;
  throw new BotwireError(
    'BW_ERR_COLLECTION_FORBIDDEN',
    `this bot may not read the collection "${collection}" (it is neither its owner nor shared)`,
    { details: { collection } },
  );
}
