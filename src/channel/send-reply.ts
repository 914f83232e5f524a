/**
 * Sending one reply: its calls rendered, paced, sent in order and recorded each once (see
 * handle-outbound.ts for the guarantees).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BotDirectory } from '../shared/bots/directory.ts';
import type { ChannelRecord } from '../shared/bots/types.ts';
import type { MessageContext } from '../shared/bus/delivery.ts';
import type { Knex } from '../shared/db.ts';
import { BotwireError, isTransient } from '../shared/errors.ts';
import type { Redis } from '../shared/redis.ts';
import type { Breaker } from './breaker.ts';
import type { ConversationRef, InternalMessage } from '../shared/messages.ts';
import { PACES, type Pace, type Pacer } from './pacing.ts';
import { formOf, PlatformError, type TelegramApi, type WhatsAppApi } from './platform-api.ts';
import { renderTelegram, type TelegramCall } from './render-telegram.ts';
import { renderWhatsApp } from './render-whatsapp.ts';
import { planWeb } from './plan-web.ts';
import type { VisitorStreams } from '../shared/web/visitor-stream.ts';
import {
  recordedOutbound,
  recordOutbound,
  type OutboundTurn,
  type OutboundOutcome,
  type OutboundRecord,
} from './store.ts';
import { truncate } from './text-limits.ts';

export interface ChannelOut {
  source: string;
  turn_id: string;
  intent: 'channel_out';
  /** Who wrote the messages when not the bot: an agent's actor, during a handoff. */
  sent_by?: string;
  bot_output: { conversation: ConversationRef; messages: InternalMessage[] };
}

export interface OutboundDeps {
  db: Knex;
  pacer: Pacer;
  prefix: string;
  directory: BotDirectory;
  telegram: TelegramApi;
  whatsapp: WhatsAppApi;
  /** The web visitors' event streams, where web replies go. */
  web?: VisitorStreams;
  /** Tries per call before the turn is left to the consumer's retry. @defaultValue 4 */
  attempts?: number;
  /** Of those, tries after a 5xx, timeout or refused connection. @defaultValue `attempts` */
  transientAttempts?: number;
  /** The circuit breaker and parking of platform accounts; none: every reply is sent in place. */
  breaker?: Breaker;
  /** Platform clients with the short timeout, for an account that failed lately. */
  suspect?: { telegram: TelegramApi; whatsapp: WhatsAppApi };
  /** A WhatsApp number's pace (WHATSAPP_MESSAGES_PER_SECOND). @defaultValue `PACES.whatsappNumber` */
  whatsappPace?: Pace;
  /**
   * `leftover`: each call takes only the capacity replies leave (`Pacer.reserveLeftover`), as a
   * broadcast's sends do. @defaultValue `reply`
   */
  pace?: 'reply' | 'leftover';
  /**
   * Asked once per reply, after the pace allows the first try of its first call and just before
   * it is made: false withdraws the reply (`Withdrawn` is thrown; nothing was sent), as a
   * broadcast's recipient no longer its sender's to send.
   */
  beforeCall?: () => Promise<boolean>;
  /** Redis holding the bots' turn ledgers (`bot-turns.ts`); a finished turn is removed. */
  ledger?: Redis;
  /** First backoff after a 5xx or timeout (ms). @defaultValue 250 */
  backoffMs?: number;
  /** Longest `retry_after` waited in place (s); longer ones go back to the consumer. @defaultValue 30 */
  maxRetryAfterS?: number;
  /** The seqs of a turn's calls already recorded; `recordedOutbound` one by one when absent. */
  recorded?: (turn: OutboundTurn) => Promise<Set<string>>;
  /** Records a call that ended (false: already recorded); `recordOutbound` one by one when absent. */
  record?: (record: OutboundRecord) => Promise<boolean>;
}

/** A call `beforeCall` withdrew: nothing was sent. */
export class Withdrawn extends Error {
  override name = 'Withdrawn';
}

interface PlannedCall {
  seq: string;
  message: InternalMessage;
  send: () => Promise<string>;
  paces: [string, Pace][];
}

/**
 * One Telegram call; a voice note we made goes as multipart. A user may refuse voice notes
 * (Telegram Premium privacy: 400 VOICE_MESSAGES_FORBIDDEN); they then get its words as text.
 */
async function sendTelegram(
  telegram: TelegramApi,
  token: string,
  call: TelegramCall,
  message: InternalMessage,
): Promise<unknown> {
  const { file } = call;
  if (!file) return telegram.call(token, call.method, call.body);
  try {
    return await telegram.call(token, call.method, formOf(call.body, file.name, file));
  } catch (error) {
    const words = message.message_type === 'audio' ? message.text : undefined;
    const forbidden =
      error instanceof PlatformError && error.message.includes('VOICE_MESSAGES_FORBIDDEN');
    if (!words || !forbidden) throw error;
    return telegram.call(token, 'sendMessage', {
      chat_id: call.body.chat_id,
      text: truncate(words, 4096),
    });
  }
}

/** The paces every call of a reply to `chatId` waits under; none for web and test chats. */
export function pacesOf(
  deps: Pick<OutboundDeps, 'prefix' | 'whatsappPace'>,
  channel: ChannelRecord,
  chatId: string,
): [string, Pace][] {
  const secrets = channel.secrets;
  if (secrets.type === 'telegram') {
    return [
      // One hash tag per bot channel: both keys are reserved in one script.
      [`${deps.prefix}:pace:{tg:${channel.id}}`, PACES.telegramBot],
      [
        `${deps.prefix}:pace:{tg:${channel.id}}:${chatId}`,
        chatId.startsWith('-') ? PACES.telegramGroupChat : PACES.telegramPrivateChat,
      ],
    ];
  }
  if (secrets.type === 'whatsapp') {
    const number = secrets.details.phone_number_id;
    return [[`${deps.prefix}:pace:wa:${number}`, deps.whatsappPace ?? PACES.whatsappNumber]];
  }
  return [];
}

function plan(deps: OutboundDeps, channel: ChannelRecord, input: ChannelOut): PlannedCall[] {
  const { conversation, messages } = input.bot_output;
  const secrets = channel.secrets;
  if (secrets.type === 'web' || secrets.type === 'console') {
    return planWeb(deps.web, conversation, input.turn_id, messages).map((call) => ({
      ...call,
      paces: [],
    }));
  }
  const paces = pacesOf(deps, channel, conversation.chat_id);
  const calls: PlannedCall[] = [];
  messages.forEach((message, i) => {
    if (secrets.type === 'telegram') {
      const token = secrets.details.bot_token;
      renderTelegram(conversation.chat_id, message).forEach((call, j) => {
        calls.push({
          seq: `${i}.${j}`,
          message,
          send: async () => {
            const result = (await sendTelegram(deps.telegram, token, call, message)) as {
              message_id?: number;
            };
            return `${conversation.chat_id}:${result.message_id ?? ''}`;
          },
          paces,
        });
      });
    } else {
      const { phone_number_id: number, access_token: accessToken } = secrets.details;
      renderWhatsApp(conversation.chat_id, message).forEach(({ body, upload }, j) => {
        calls.push({
          seq: `${i}.${j}`,
          message,
          send: async () => {
            // A retry uploads again: an upload is cheap and its id is not worth a row of state.
            const media = upload
              ? {
                  audio: {
                    ...(body.audio as object),
                    id: await deps.whatsapp.upload(number, accessToken, upload),
                  },
                }
              : {};
            return deps.whatsapp.send(number, accessToken, { ...body, ...media });
          },
          paces,
        });
      });
    }
  });
  return calls;
}

/** Sends one call, honouring pace, 429 waits and transient-failure backoff. */
async function deliver(
  deps: OutboundDeps,
  call: PlannedCall,
  context: MessageContext,
  reserve: (paces: readonly [string, Pace][]) => Promise<number>,
): Promise<string> {
  const attempts = deps.attempts ?? 4;
  for (let attempt = 1; ; attempt += 1) {
    if (deps.pace === 'leftover') {
      // Asks again after each wait: replies may have taken the slot meanwhile.
      for (let wait = 1; call.paces.length > 0 && wait > 0;) {
        wait = await deps.pacer.reserveLeftover(call.paces);
        if (wait > 0) await sleep(wait);
      }
    } else {
      const wait = call.paces.length > 0 ? await reserve(call.paces) : 0;
      if (wait > 0) await sleep(wait);
    }
    if (attempt === 1 && deps.beforeCall && !(await deps.beforeCall())) throw new Withdrawn();
    try {
      return await call.send();
    } catch (error) {
      if (!(error instanceof PlatformError) || !error.retryable) throw error;
      const tries = error.status === 429 ? attempts : (deps.transientAttempts ?? attempts);
      if (attempt >= tries) throw error;
      const retryAfterMs = error.retryAfterS !== undefined ? error.retryAfterS * 1000 : undefined;
      if (retryAfterMs !== undefined && retryAfterMs > (deps.maxRetryAfterS ?? 30) * 1000)
        throw error;
      const delay = retryAfterMs ?? (deps.backoffMs ?? 250) * 2 ** (attempt - 1);
      context.log.warn(
        { status: error.status, delayMs: delay, attempt },
        'platform asked to wait or failed; retrying',
      );
      await sleep(delay);
    }
  }
}

/** Longest wait between tries to record a sent call while Postgres is unreachable (ms). */
const RECORD_RETRY_MAX_MS = 5000;

/**
 * Records a call the platform answered. The call was made: nothing after this point may fail the
 * turn, since the retry would send it again (the platforms have no idempotency key). So while
 * Postgres is unreachable, or fails in a way that may pass, it keeps trying, here; any other
 * failure (the conversation deleted meanwhile, say) is logged, and the turn goes on without the
 * row.
 */
async function recordEnded(
  record: () => Promise<boolean>,
  seq: string,
  context: MessageContext,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      if (!(await record()))
        context.log.warn(
          { seq },
          'this call was already recorded: another attempt sent it too, or a batch committed before its answer was lost',
        );
      return;
    } catch (error) {
      if (!isTransient(error)) {
        context.log.error(
          { err: (error as Error).message, seq },
          'the call was made, but its row could not be recorded; it is not sent again',
        );
        return;
      }
      const delay = Math.min(100 * 2 ** (attempt - 1), RECORD_RETRY_MAX_MS);
      context.log.warn(
        { err: (error as Error).message, seq, delayMs: delay },
        'the call ended, but Postgres failed; recording again',
      );
      await sleep(delay);
    }
  }
}

/**
 * Sends a reply's calls in order, skipping those recorded already; resolves to how the calls
 * sent by this attempt ended. `slotDueAt` (epoch ms): a slot under the reply's paces reserved
 * already (with the breaker's admission), taken by the first try of the first call it sends.
 */
export async function sendReply(
  deps: OutboundDeps,
  channel: ChannelRecord,
  input: ChannelOut,
  context: MessageContext,
  slotDueAt?: number,
): Promise<OutboundOutcome[]> {
  let held = slotDueAt;
  const reserve = (paces: readonly [string, Pace][]): Promise<number> => {
    if (held === undefined) return deps.pacer.reserve(paces);
    const wait = held - Date.now();
    held = undefined;
    return Promise.resolve(wait);
  };
  const outcomes: OutboundOutcome[] = [];
  let asked = false;
  const { conversation } = input.bot_output;
  const recorded = deps.recorded ?? ((turn) => recordedOutbound(deps.db, turn));
  const record = deps.record ?? ((row) => recordOutbound(deps.db, row));
  const turn = { conversationId: conversation.conversation_id, turnId: input.turn_id };
  const calls = plan(deps, channel, input);
  for (const [index, call] of calls.entries()) {
    // A recorded call (a redelivered or republished turn) is not sent again. Read before each
    // call, not once per turn: an attempt still running elsewhere (a lease lost mid-turn) may
    // have recorded the calls after its first one since.
    if ((await recorded(turn)).has(call.seq)) continue;
    const ended = (outcome: OutboundOutcome): Promise<void> => {
      outcomes.push(outcome);
      return recordEnded(
        () =>
          record({
            ...turn,
            seq: call.seq,
            message: call.message,
            outcome,
            appId: conversation.app_id,
            channelType: conversation.channel_type,
            ...(input.sent_by ? { sentBy: input.sent_by } : { timed: index === 0 }),
          }),
        call.seq,
        context,
      );
    };
    let platformMessageId: string;
    try {
      // `beforeCall` is asked once, before the reply's first call made.
      const first = !asked;
      asked = true;
      platformMessageId = await deliver(
        first ? deps : { ...deps, beforeCall: undefined },
        call,
        context,
        reserve,
      );
    } catch (error) {
      if (error instanceof Withdrawn) throw error;
      if (error instanceof PlatformError && !error.retryable) {
        await ended({
          status: 'failed',
          error: error.message,
          ...(error.code ? { code: error.code } : {}),
        });
        context.log.warn(
          { seq: call.seq, reason: error.message },
          'the platform refused a message; recorded, not retried',
        );
        continue;
      }
      throw new BotwireError('BW_ERR_UPSTREAM', `sending failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    // Outside the try: a failure to record must never be taken for a failed send (that would
    // send the call again).
    await ended({ status: 'sent', platformMessageId });
  }
  return outcomes;
}
