/**
 * channel_out: a bot turn's messages rendered to platform calls and sent, in order, each once.
 *
 * Once: every call that ended is a `messages` row keyed by (conversation, turn, seq), inserted
 * when the platform answered. Before each call the turn reads which of its calls are recorded,
 * so a redelivered or republished turn skips them and resumes at the first one that is not. The
 * one gap left is a crash after the platform accepted a call and before its row was committed:
 * that call is sent again (the platforms offer no idempotency key); see docs/pipeline.md.
 *
 * Pace and retries: each call waits for its slot under the bot's (or number's) and the chat's
 * pace (`pacing.ts`); a 429 waits the `retry_after` Telegram asks for; 5xx and timeouts back off
 * and retry up to `transientAttempts` tries; after the last try the turn fails retryably and the
 * consumer retries it later, still ahead of the conversation's next messages. A 4xx is recorded
 * with the platform's reason and not retried.
 *
 * A failing platform (`breaker.ts`): with a `breaker`, a reply whose account's breaker is open,
 * or whose account has replies parked, is parked instead of sent; a 5xx, timeout or refused
 * connection counts against the account, and the call that opens the breaker parks its reply
 * (the calls sent already are recorded and skipped when the drainer resumes it). Either way the
 * entry is acknowledged and the handler slot freed at once.
 */
import { streamsReplies } from '../shared/bots/types.ts';
import type { MessageContext } from '../shared/bus/delivery.ts';
import { finishTurns } from '../shared/bot-turns.ts';
import { BotwireError } from '../shared/errors.ts';
import { PlatformError } from './platform-api.ts';
import { pacesOf, sendReply, type ChannelOut, type OutboundDeps } from './send-reply.ts';

export type { ChannelOut, OutboundDeps } from './send-reply.ts';

/**
 * Whether a failed send is the platform failing (5xx, timeout, refused connection, a 429 asking
 * to wait longer than is waited in place), as opposed to Postgres or our own fault.
 */
export function isPlatformFailure(error: unknown, counting429 = false): boolean {
  const cause = error instanceof BotwireError ? error.cause : error;
  return cause instanceof PlatformError && cause.retryable && (counting429 || cause.status !== 429);
}

/**
 * Takes a finished (or parked) turn out of its bot's ledger; a miss heals with the horizon. Not
 * waited for: on the auto-pipelined connection it leaves in one write with the entry's `XACK`,
 * which the consumer sends as the handler returns (a round trip and a wake-up fewer a turn).
 */
function finished(deps: OutboundDeps, input: ChannelOut, context: MessageContext): void {
  if (!deps.ledger) return;
  void finishTurns(deps.ledger, deps.prefix, input.bot_output.conversation.app_id, [
    input.turn_id,
  ]).catch((error: unknown) =>
    context.log.debug({ err: error }, 'could not take the turn out of the bot ledger'),
  );
}

export async function handleOutbound(
  deps: OutboundDeps,
  input: ChannelOut,
  context: MessageContext,
): Promise<void> {
  const { conversation } = input.bot_output;
  const bot = await deps.directory.byAppId(conversation.app_id);
  const channel = bot?.channels.find((c) => c.id === conversation.channel_id);
  if (!channel) {
    context.log.warn(
      { appId: conversation.app_id },
      'reply for a bot or channel that no longer exists; dropped',
    );
    finished(deps, input, context);
    return;
  }
  // Web and test-chat replies go to our own Redis: no platform account to trip a breaker.
  const breaker = streamsReplies(channel.type) ? undefined : deps.breaker;
  let failures = 0;
  let slotDueAt: number | undefined;
  if (breaker) {
    // The first call's slot is reserved with the admission where the keys allow (one server).
    const paces = deps.pace === 'leftover' ? [] : pacesOf(deps, channel, conversation.chat_id);
    const admission = await breaker.admit(
      channel.id,
      input.turn_id,
      JSON.stringify(input),
      false,
      paces,
    );
    if (admission.parked) {
      context.log.debug({ channelId: channel.id }, 'platform account parked: reply parked');
      finished(deps, input, context);
      return;
    }
    ({ failures, slotDueAt } = admission);
  }
  try {
    await sendReply(
      failures > 0 && deps.suspect ? { ...deps, ...deps.suspect } : deps,
      channel,
      input,
      context,
      slotDueAt,
    );
  } catch (error) {
    if (!breaker || !isPlatformFailure(error) || !(await breaker.fail(channel.id))) throw error;
    await breaker.admit(channel.id, input.turn_id, JSON.stringify(input), true);
    context.log.warn(
      { channelId: channel.id, err: (error as Error).message },
      'platform account failing: breaker open, reply parked',
    );
    finished(deps, input, context);
    return;
  }
  if (breaker && failures > 0) await breaker.succeeded(channel.id);
  finished(deps, input, context);
}
