/**
 * Stalls the recording of replies in a fault system's transcript, in the real Postgres: a trigger
 * makes every outbound row's insert wait for a shared advisory lock that the test holds
 * exclusively until `release`. Inbound rows and reads go on, so turns keep arriving, their
 * replies are sent (or, on the web, shown) and wait to be recorded: the window an exactly-once
 * design has to cover when `channel` dies in it.
 */
import type { Knex } from '../../src/shared/db.ts';

/** Any fixed number; only this file takes the lock. */
const LOCK = 724_242;

export interface TranscriptStall {
  /** Lets the waiting inserts through and removes the trigger. */
  release(): Promise<void>;
}

export async function stallOutboundRecords(db: Knex): Promise<TranscriptStall> {
  await db.raw(`
    create or replace function stall_outbound() returns trigger language plpgsql as $$
    begin
      perform pg_advisory_xact_lock_shared(${LOCK});
      return new;
    end $$`);
  const holder = await db.transaction();
  try {
    await holder.raw('select pg_advisory_xact_lock(?)', [LOCK]);
    await db.raw(`
      create trigger stall_outbound before insert on messages
      for each row when (new.direction = 'out') execute function stall_outbound()`);
  } catch (error) {
    await holder.rollback();
    throw error;
  }
  return {
    async release() {
      await holder.rollback();
      await db.raw('drop trigger if exists stall_outbound on messages');
      await db.raw('drop function if exists stall_outbound()');
    },
  };
}
