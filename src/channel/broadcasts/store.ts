/**
 * A broadcast run's rows (migration `20261129230000_broadcasts`; docs/outbound.md): the run takes
 * the broadcast, picks its recipients one by one, marks each `sending` just before the call, and
 * records how it ended. Every step names the run, so a run that another has replaced (a resume,
 * or a process given up for dead) picks nothing more and sends nothing it picked.
 */
import type { Knex } from '../../shared/db.ts';
import type { ConversationRefRow } from '../../shared/conversation-ref.ts';
import type { InternalMessage } from '../../shared/messages.ts';
import { lastInboundAtSql } from '../../shared/whatsapp-window.ts';
import { Batcher } from '../../shared/batcher.ts';

export interface BroadcastRow {
  id: string;
  app_id: string;
  channel_id: string;
  status: string;
  internal: InternalMessage;
  created_by: string;
  /** The flow state each recipient's answer goes to; null: where their conversation is. */
  flow_state: string | null;
}

/**
 * Takes the broadcast for run `runId` if it is to run (scheduled or running) under `start` (the
 * job's; a job of an earlier start takes nothing): a scheduled one is running from now on.
 * Recipients an earlier run picked and never called are queued again.
 */
export async function takeBroadcast(
  db: Knex,
  id: string,
  runId: string,
  start: string | undefined,
): Promise<BroadcastRow | undefined> {
  return db.transaction(async (tx) => {
    const query = tx('broadcasts').where('id', id).whereIn('status', ['scheduled', 'running']);
    // A job added before starts were named runs whichever start is current.
    if (start !== undefined)
      void query.where((q) => void q.whereNull('start_name').orWhere('start_name', start));
    const raw: unknown = await query
      .update({
        status: 'running',
        run_id: runId,
        started_at: tx.raw('coalesce(started_at, now())'),
        waiting_until: null,
      })
      .returning(['id', 'app_id', 'channel_id', 'status', 'internal', 'created_by', 'flow_state']);
    const [row] = raw as BroadcastRow[];
    if (!row) return undefined;
    await tx('broadcast_recipients')
      .where({ broadcast_id: id, state: 'picked' })
      .update({ state: 'queued', run_id: null });
    return row;
  });
}

/**
 * Run `runId` stops until `until`: the number's messaging limit has no room. What it picked and
 * did not call is queued again; the broadcast says until when it waits. Resolves to false when
 * the broadcast is no longer this run's (paused, cancelled, taken on by another): nothing to wait for.
 */
export async function deferBroadcast(
  db: Knex,
  id: string,
  runId: string,
  until: Date,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx('broadcast_recipients')
      .where({ broadcast_id: id, state: 'picked', run_id: runId })
      .update({ state: 'queued', run_id: null });
    const held = await tx('broadcasts')
      .where({ id, run_id: runId, status: 'running' })
      .update({ waiting_until: until });
    return held === 1;
  });
}

/** A recipient picked for sending, with what the rules need to decide. */
export interface Picked extends ConversationRefRow {
  seq: number;
  values: Record<string, string>;
  opted_out_at: Date | null;
  last_inbound_at: Date | null;
}

/**
 * The broadcast's next queued recipients, at most `limit`, in order, picked by run `runId`; none
 * when every one is picked, or the broadcast is no longer running under this run (paused,
 * cancelled, taken by another run). `windowed`: their last inbound message's time is read (a
 * WhatsApp broadcast: free-form needs the window open, a template to a closed one starts a
 * conversation); otherwise it is null.
 */
export async function pickNext(
  db: Knex,
  pick: { id: string; runId: string; limit: number; windowed: boolean },
): Promise<Picked[]> {
  const result: unknown = await db.raw(
    `with next as (
       select r.seq from broadcast_recipients r
       where r.broadcast_id = :id and r.state = 'queued'
         and exists (select 1 from broadcasts b
                     where b.id = :id and b.status = 'running' and b.run_id = :runId)
       order by r.seq limit :limit
       for update skip locked
     ), picked as (
       update broadcast_recipients r set state = 'picked', run_id = :runId, updated_at = now()
       from next where r.broadcast_id = :id and r.seq = next.seq
       returning r.seq, r.conversation_id, r.values
     )
     select p.seq, p.values, c.app_id, c.channel_id, ch.type as channel_type,
       c.id as conversation_id, c.chat_id, c.user_pid, c.language as user_language,
       b.language as bot_language, c.opted_out_at,
       case when :windowed then ${lastInboundAtSql('c.id')} end
         as last_inbound_at
     from picked p
     left join conversations c on c.id = p.conversation_id
     left join channels ch on ch.id = c.channel_id
     left join bots b on b.app_id = c.app_id
     order by p.seq`,
    pick,
  );
  return (result as { rows: Picked[] }).rows;
}

/** One recipient of one run. */
export interface RecipientOfRun {
  id: string;
  seq: number;
  runId: string;
}

export type RecipientOutcome =
  | { state: 'sent'; platform_message_id: string }
  | { state: 'failed' | 'skipped' | 'unknown'; reason: string }
  /** The call was not made (the platform asked to wait, or failed at once): picked again later. */
  | { state: 'queued' };

// Both statements take a batch as one JSON array (group commit, `shared/batcher.ts`): the calls
// a process's broadcasts make meanwhile are marked, or recorded, by one statement.
const MARK_SENDING = `update broadcast_recipients r set state = 'sending', updated_at = now()
  from jsonb_to_recordset(?::jsonb) as x (id uuid, seq int, run_id uuid)
  where r.broadcast_id = x.id and r.seq = x.seq and r.state = 'picked' and r.run_id = x.run_id
    and exists (select 1 from broadcasts b
                where b.id = x.id and b.status = 'running' and b.run_id = x.run_id)
  returning r.broadcast_id as id, r.seq`;

// A recipient queued again for a broadcast cancelled meanwhile is skipped as the cancel skipped
// the others.
const RECORD_OUTCOME = `update broadcast_recipients r set
    state = case when x.state = 'queued' and b.status = 'cancelled' then 'skipped' else x.state end,
    reason = case when x.state = 'queued' and b.status = 'cancelled' then 'cancelled'
                  else x.reason end,
    platform_message_id = x.platform_message_id,
    run_id = case when x.state = 'queued' then null else r.run_id end, updated_at = now()
  from jsonb_to_recordset(?::jsonb) as x (id uuid, seq int, run_id uuid, state text, reason text,
    platform_message_id text)
  join broadcasts b on b.id = x.id
  where r.broadcast_id = x.id and r.seq = x.seq and r.run_id = x.run_id
    and r.state in ('picked', 'sending')`;

export interface RecipientWrites {
  /**
   * Marks a picked recipient `sending`, committed, just before its call: true if it is still its
   * run's to send and the broadcast still runs under that run (a pause or cancel withdraws the
   * calls waiting for their pace).
   */
  markSending(recipient: RecipientOfRun): Promise<boolean>;
  /** Records how a recipient of its run ended. */
  recordOutcome(recipient: RecipientOfRun, outcome: RecipientOutcome): Promise<void>;
}

/** The recipients' writes of a process, by group commit. */
export function recipientWrites(db: Knex): RecipientWrites {
  const marking = new Batcher<RecipientOfRun, boolean>(async (items) => {
    const result: unknown = await db.raw(MARK_SENDING, [
      JSON.stringify(items.map((r) => ({ id: r.id, seq: r.seq, run_id: r.runId }))),
    ]);
    const marked = new Set(
      (result as { rows: { id: string; seq: number }[] }).rows.map((r) => `${r.id}/${r.seq}`),
    );
    return items.map((r) => marked.has(`${r.id}/${r.seq}`));
  });
  const recording = new Batcher<{ recipient: RecipientOfRun; outcome: RecipientOutcome }, void>(
    async (items) => {
      await db.raw(RECORD_OUTCOME, [
        JSON.stringify(
          items.map(({ recipient: r, outcome }) => ({
            id: r.id,
            seq: r.seq,
            run_id: r.runId,
            state: outcome.state,
            reason: 'reason' in outcome ? outcome.reason : null,
            platform_message_id:
              'platform_message_id' in outcome ? outcome.platform_message_id : null,
          })),
        ),
      ]);
      return items.map(() => undefined);
    },
  );
  return {
    markSending: (recipient) => marking.add(recipient),
    recordOutcome: (recipient, outcome) => recording.add({ recipient, outcome }),
  };
}

/**
 * Settles the recipients other runs left `sending` for longer than `staleMs` (their calls have
 * ended one way or the other): from the transcript row of their call when it has one, `unknown`
 * when it has none (the call may or may not have reached the platform; it is not made again).
 * Resolves to how many are still `sending` under other runs and not yet stale.
 */
export async function settleLeftSending(
  db: Knex,
  id: string,
  runId: string,
  staleMs: number,
): Promise<number> {
  await db.raw(
    `update broadcast_recipients r set
       state = case when m.status = 'failed' then 'failed'
                    when m.id is not null then 'sent' else 'unknown' end,
       reason = case when m.status = 'failed' then m.error
                     when m.id is null then 'the process sending it stopped during the call' end,
       platform_message_id = m.platform_message_id,
       updated_at = now()
     from broadcast_recipients s
     left join lateral (
       select id, status, error, platform_message_id from messages
       where conversation_id = s.conversation_id and direction = 'out'
         and turn_id = 'bc:' || s.broadcast_id || ':' || s.seq
       order by id limit 1
     ) m on true
     where s.broadcast_id = :id and s.state = 'sending' and s.run_id is distinct from :runId
       and s.updated_at < now() - make_interval(secs => :stale)
       and r.broadcast_id = s.broadcast_id and r.seq = s.seq`,
    { id, runId, stale: staleMs / 1000 },
  );
  const byStateRaw: unknown = await db('broadcast_recipients')
    .where({ broadcast_id: id, state: 'sending' })
    .count<{ count: string }[]>('* as count');
  const [left] = byStateRaw as { count: string }[];
  return Number(left?.count ?? 0);
}

/**
 * Queues again the recipients other runs picked and never marked: a run that began its pick just
 * before this one took over may leave them so, and die.
 */
export async function requeueOthersPicked(db: Knex, id: string, runId: string): Promise<void> {
  await db('broadcast_recipients')
    .where({ broadcast_id: id, state: 'picked' })
    .whereNot('run_id', runId)
    .update({ state: 'queued', run_id: null });
}

/** Ends the broadcast of run `runId` as finished when no recipient is left to send. */
export async function finishIfDone(db: Knex, id: string, runId: string): Promise<boolean> {
  const count = await db('broadcasts')
    .where({ id, status: 'running', run_id: runId })
    .whereNotExists(
      db('broadcast_recipients')
        .where('broadcast_id', id)
        .whereIn('state', ['queued', 'picked', 'sending']),
    )
    .update({ status: 'finished', ended_at: db.fn.now() });
  return count === 1;
}

/** The turn id of a recipient's message: its transcript rows carry it. */
export function broadcastTurnId(id: string, seq: number): string {
  return `bc:${id}:${seq}`;
}
