/**
 * One run of a broadcast (docs/outbound.md): its recipients picked one by one and sent by up to
 * `inFlight` calls at once, each through `sendReply` with `leftover` pace, so the bot's replies to
 * users who are chatting go first and the broadcast takes what capacity they leave. Each
 * recipient's call is made at most once: it is marked `sending` in its own commit just before the
 * call (`store.ts`), and a run that finds calls another left `sending` settles them from the
 * transcript, never calling again.
 *
 * Platform answers: a refusal (4xx) fails that recipient; a 429, a 5xx or a refused connection
 * means the message was not taken: the recipient is queued again and the whole run waits (the
 * platform's `retry_after`, else a backoff that doubles up to a minute). A call that got no answer
 * (a timeout, a connection cut) may have reached the user: `unknown`, not sent again.
 *
 * A WhatsApp template to a user whose 24-hour window is closed starts a conversation, which the
 * number's messaging limit counts (`shared/whatsapp-messaging-limit.ts`): without room, the run
 * stops and the broadcast waits, its job delayed until the oldest counted user leaves the 24 hours.
 *
 * A broadcast with a `flow_state` moves each recipient's conversation to that state's wait just
 * before their call (`shared/answer-state.ts`), so their answer goes there.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { BotDirectory } from '../../shared/bots/directory.ts';
import type { MessageContext } from '../../shared/bus/delivery.ts';
import { conversationRefOfRow } from '../../shared/conversation-ref.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import { personalize } from '../../shared/broadcasts/placeholders.ts';
import { whatsappWindow } from '../../shared/whatsapp-window.ts';
import { messagingLimitOf, type MessagingLimit } from '../../shared/whatsapp-messaging-limit.ts';
import { PlatformError } from '../platform-api.ts';
import { sendReply, Withdrawn, type OutboundDeps } from '../send-reply.ts';
import { recordOutbound } from '../store.ts';
import { moveTo } from '../../shared/answer-state.ts';
import {
  broadcastTurnId,
  finishIfDone,
  pickNext,
  requeueOthersPicked,
  settleLeftSending,
  deferBroadcast,
  takeBroadcast,
  type BroadcastRow,
  type Picked,
  type RecipientOutcome,
  type RecipientWrites,
} from './store.ts';

export interface RunnerDeps {
  sending: OutboundDeps;
  /** The recipients' writes, by group commit (`recipientWrites`). */
  writes: RecipientWrites;
  directory: BotDirectory;
  log: Logger;
  /** Calls under way at once (BROADCAST_SENDS_IN_FLIGHT). */
  inFlight: number;
  /** How long a call other runs left `sending` may still be under way (ms). */
  staleMs: number;
  /** WhatsApp numbers' messaging limits. */
  messagingLimit: MessagingLimit;
  /** Publishes a message to `flow` once under `id` (a recipient's move to the answer's state). */
  publishToFlow: (id: string, message: Record<string, unknown>) => Promise<void>;
}

/** A broadcast waiting for its number's messaging limit is looked at again no sooner than this. */
const MIN_LIMIT_WAIT_MS = 60_000;

/** How a run ended: done with what it could send, stopped by the process, or waiting for room. */
export type RunEnd = 'ended' | 'interrupted' | { waitUntil: Date };

/** A recipient's outcome as the run acts on it. */
type SendEnd = RecipientOutcome & { retryAfterMs?: number; withdrawn?: boolean; limitMs?: number };

const MAX_BACKOFF_MS = 60_000;

/** Recipients picked by one statement. */
const PICK_BATCH = 32;

/** How a recipient's send ended, from what `sendReply` answered or threw. */
function outcomeOf(
  result:
    { outcomes: Awaited<ReturnType<typeof sendReply>> } | { error: unknown; sentCalls: number },
): RecipientOutcome & { retryAfterMs?: number } {
  if ('outcomes' in result) {
    const failed = result.outcomes.find((o) => o.status === 'failed');
    if (failed && failed.status === 'failed') return { state: 'failed', reason: failed.error };
    const sent = result.outcomes.find((o) => o.status === 'sent');
    if (sent && sent.status === 'sent')
      return { state: 'sent', platform_message_id: sent.platformMessageId };
    // Every call was recorded already: settled from the transcript at the run's end.
    return { state: 'unknown', reason: 'the call was recorded by another attempt' };
  }
  const cause = result.error instanceof BotwireError ? result.error.cause : result.error;
  const why = (cause as Error).message;
  // A message of several calls whose first went: never sent again, whatever the rest did.
  if (result.sentCalls > 0)
    return { state: 'failed', reason: `sent in part (${result.sentCalls} call(s)): ${why}` };
  if (cause instanceof PlatformError) {
    const refused = (cause.cause as { code?: string } | undefined)?.code === 'ECONNREFUSED';
    // Only what says the message was not taken is tried again: "slow down", "unavailable", no
    // connection. Any other 5xx may come from a gateway after the platform took it.
    if (cause.status === 429 || cause.status === 503 || refused) {
      return {
        state: 'queued',
        ...(cause.retryAfterS !== undefined ? { retryAfterMs: cause.retryAfterS * 1000 } : {}),
      };
    }
    if (cause.retryable) return { state: 'unknown', reason: `no answer from the platform: ${why}` };
  }
  return { state: 'unknown', reason: `the send failed: ${why}` };
}

/**
 * Runs broadcast `id` until every recipient is settled, or it is paused or cancelled; resolves to
 * `interrupted` when `signal` stopped it first (the process is stopping): the rest is left queued;
 * to `waitUntil` when the number's messaging limit has no room before then.
 */
export async function runBroadcast(
  deps: RunnerDeps,
  job: { id: string; start?: string },
  signal: AbortSignal,
): Promise<RunEnd> {
  const { id } = job;
  const runId = randomUUID();
  const { db } = deps.sending;
  const broadcast = await takeBroadcast(db, id, runId, job.start);
  if (!broadcast) return 'ended';
  const log = deps.log.child({ broadcastId: id, runId });
  const bot = await deps.directory.byAppId(broadcast.app_id);
  const channel = bot?.channels.find((c) => c.id === broadcast.channel_id);
  if (!channel) {
    // Gone, or so new this process's directory does not have it yet: the job is tried again.
    throw new BotwireError('BW_ERR_NOT_FOUND', 'the broadcast’s bot or channel is not known here');
  }
  let waitUntil = 0;
  let backoffMs = 1000;
  // Recipients are picked a few at a time for every slot: one statement per PICK_BATCH. Those
  // picked and not yet marked `sending` when the run stops are queued again by the next run.
  const windowed = channel.type === 'whatsapp';
  let limitedUntil = 0;
  const picks: Picked[] = [];
  let refill: Promise<void> | undefined;
  let exhausted = false;
  const next = async (): Promise<Picked | undefined> => {
    while (picks.length === 0 && !exhausted) {
      refill ??= pickNext(db, { id, runId, limit: PICK_BATCH, windowed }).then((rows) => {
        if (rows.length === 0) exhausted = true;
        picks.push(...rows);
        refill = undefined;
      });
      await refill;
    }
    return picks.shift();
  };
  const slot = async () => {
    for (;;) {
      const ahead = waitUntil - Date.now();
      if (ahead > 0) await sleep(ahead, undefined, { signal }).catch(() => undefined);
      if (signal.aborted || limitedUntil > 0) return;
      const picked = await next();
      if (!picked) return;
      const outcome = await sendOne(deps, broadcast, channel, picked, runId, log);
      if (outcome.limitMs !== undefined) {
        limitedUntil = Math.max(limitedUntil, Date.now() + outcome.limitMs);
      } else if (outcome.state === 'queued' && !outcome.withdrawn) {
        const wait = outcome.retryAfterMs ?? backoffMs;
        backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
        waitUntil = Math.max(waitUntil, Date.now() + wait);
        log.warn({ waitMs: wait }, 'the platform did not take a message: the broadcast waits');
      } else if (outcome.state !== 'skipped') {
        backoffMs = 1000;
      }
    }
  };
  for (;;) {
    exhausted = false;
    await Promise.all(Array.from({ length: deps.inFlight }, slot));
    if (signal.aborted) return 'interrupted';
    if (limitedUntil > 0) {
      const until = new Date(Math.max(limitedUntil, Date.now() + MIN_LIMIT_WAIT_MS));
      // Paused, cancelled or taken on meanwhile: not this run's to wait for.
      if (!(await deferBroadcast(db, id, runId, until))) return 'ended';
      log.info({ until }, 'the number’s messaging limit is reached: the broadcast waits');
      return { waitUntil: until };
    }
    // Calls another run left under way are settled once they cannot be under way any more.
    while ((await settleLeftSending(db, id, runId, deps.staleMs)) > 0) {
      if (signal.aborted) return 'interrupted';
      if (!(await stillRunning(deps, id, runId))) return 'ended';
      await sleep(Math.min(1000, deps.staleMs));
    }
    if (await finishIfDone(db, id, runId)) {
      log.info('broadcast finished');
      return 'ended';
    }
    // Not done: recipients the platform did not take were queued again after the last pick, or
    // an earlier run picked some after this one took over (its pick began before). A broadcast
    // paused, cancelled or taken on by another run is not this run's any more.
    if (!(await stillRunning(deps, id, runId))) return 'ended';
    await requeueOthersPicked(db, id, runId);
    await sleep(Math.max(1000, waitUntil - Date.now()), undefined, { signal }).catch(
      () => undefined,
    );
  }
}

async function stillRunning(deps: RunnerDeps, id: string, runId: string): Promise<boolean> {
  const row: unknown = await deps.sending
    .db('broadcasts')
    .where({ id, status: 'running', run_id: runId })
    .first('id');
  return row !== undefined;
}

/**
 * Moves the recipient's conversation to `state`; false when it could not. Each try moves under
 * an id of its own: if the user wrote between a withdrawn try and the next, the next moves the
 * conversation again (they had not seen the message).
 */
async function moved(
  deps: RunnerDeps,
  turnId: string,
  picked: Picked,
  state: string,
  log: Logger,
): Promise<boolean> {
  const id = `${turnId}:move:${randomUUID().slice(0, 8)}`;
  try {
    await deps.publishToFlow(id, moveTo(picked, id, state));
    return true;
  } catch (error) {
    log.warn({ err: (error as Error).message }, 'could not move a recipient’s conversation');
    return false;
  }
}

/** Decides, sends and records one recipient; resolves to how it ended. */
async function sendOne(
  deps: RunnerDeps,
  broadcast: BroadcastRow,
  channel: Parameters<typeof sendReply>[1],
  picked: Picked,
  runId: string,
  log: Logger,
): Promise<SendEnd> {
  const recipient = { id: broadcast.id, seq: picked.seq, runId };
  const settle = async (outcome: RecipientOutcome & { retryAfterMs?: number }) => {
    await deps.writes.recordOutcome(recipient, outcome);
    return outcome;
  };
  if (!picked.conversation_id) return settle({ state: 'skipped', reason: 'no_conversation' });
  if (picked.opted_out_at) return settle({ state: 'skipped', reason: 'opted_out' });
  const window = whatsappWindow(picked);
  if (window && !window.open && broadcast.internal.message_type !== 'template')
    return settle({ state: 'skipped', reason: 'window_closed' });
  const personal = personalize(broadcast.internal, picked.values);
  if ('skip' in personal) return settle({ state: 'skipped', reason: personal.skip });
  // Room taken in the number's messaging limit, given back if no call is made after all.
  let giveBack = async () => {};
  if (window && !window.open && channel.secrets.type === 'whatsapp') {
    // A template that starts a conversation: counted against the number's limit, or not sent yet.
    const details = channel.secrets.details;
    const { waitMs, taken } = await deps.messagingLimit.take(
      details.phone_number_id,
      picked.chat_id,
      messagingLimitOf(details),
    );
    if (waitMs > 0) return { ...(await settle({ state: 'queued' })), limitMs: waitMs };
    if (taken)
      giveBack = () =>
        deps.messagingLimit.release(details.phone_number_id, picked.chat_id).catch(() => {});
  }
  const turnId = broadcastTurnId(broadcast.id, picked.seq);
  const context: MessageContext = {
    id: turnId,
    topic: 'channel',
    deliveries: 1,
    log: log.child({ turnId }),
  };
  let result: Parameters<typeof outcomeOf>[0];
  let sentCalls = 0;
  const record = deps.sending.record ?? ((row) => recordOutbound(deps.sending.db, row));
  try {
    const outcomes = await sendReply(
      {
        ...deps.sending,
        pace: 'leftover',
        attempts: 1,
        // A failure to mark or to move: not called, so queued again (`Withdrawn`). Marked
        // first: a call withdrawn there (a pause, a cancel) has moved nobody.
        beforeCall: async () => {
          const marked = await deps.writes.markSending(recipient).catch((error: unknown) => {
            log.warn({ err: (error as Error).message }, 'could not mark a recipient sending');
            return false;
          });
          const state = broadcast.flow_state;
          if (!marked || state === null) return marked;
          return moved(deps, turnId, picked, state, log);
        },
        // A picked recipient has no call recorded: one recorded by a run that died is `sending`,
        // settled, never picked again.
        recorded: () => Promise.resolve(new Set<string>()),
        record: (row) => {
          if (row.outcome.status === 'sent') sentCalls += 1;
          return record(row);
        },
      },
      channel,
      {
        source: 'broadcast',
        turn_id: turnId,
        intent: 'channel_out',
        sent_by: broadcast.created_by,
        bot_output: { conversation: conversationRefOfRow(picked), messages: [personal.message] },
      },
      context,
    );
    result = { outcomes };
  } catch (error) {
    // Paused, cancelled or taken by another run while waiting for its pace: not sent.
    if (error instanceof Withdrawn) {
      await giveBack();
      return { ...(await settle({ state: 'queued' })), withdrawn: true };
    }
    result = { error, sentCalls };
  }
  const outcome = outcomeOf(result);
  // Not taken by the platform (429, 503, no connection): sent later, counted then.
  if (outcome.state === 'queued') await giveBack();
  return settle(outcome);
}
