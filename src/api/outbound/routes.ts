/**
 * `POST /v2/bots/:app_id/messages` (docs/outbound.md): the bot writes first, to a user who has a
 * conversation with it: an order update, a reminder. The same idempotency key sends once, however
 * often and late it comes again, and answers the first result; WhatsApp's 24-hour rule is
 * enforced from channel's record of the user's last message. The message goes to `channel` like
 * an agent's reply, in the conversation's order, and channel records and sends it once.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { BotwireError } from '../../shared/errors.ts';
import {
  openWhatsAppConversations,
  WHATSAPP_NUMBER,
} from '../../shared/whatsapp-new-conversations.ts';
import type { ReadBody } from '../body.ts';
import type { Edge } from '../edge.ts';
import {
  channelOutTo,
  checkedMessage,
  internalOf,
  takeConversationStart,
  takeRoom,
  type GiveBack,
  type OutboundMessage,
} from './message.ts';
import { checkAnswerState, moveTo } from '../../shared/answer-state.ts';
import { principalOf, requireBotAccess } from '../admin/principal.ts';
import {
  claimKey,
  hasSentRow,
  recipientOf,
  storedClaim,
  type Claim,
  type Recipient,
} from './store.ts';

type RouteContext = Context & { params: Record<string, string> };

/** `schemas/http/send-message.json`. */
interface SendMessage {
  idempotency_key: string;
  to: Recipient;
  message: OutboundMessage;
  flow_state?: string;
}

/** The request as its key stands for it: the recipient, the message and where its answer goes. */
function requestHash(input: SendMessage): string {
  const parts: unknown[] = [input.to, input.message];
  if (input.flow_state !== undefined) parts.push(input.flow_state);
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

export function outboundRoutes(
  router: Router,
  edge: Edge,
  helpers: { readBody: ReadBody; appIdOf: (ctx: RouteContext) => string },
): void {
  router.post('/v2/bots/:app_id/messages', async (ctx) => {
    const appId = helpers.appIdOf(ctx);
    requireBotAccess(ctx, appId);
    const input = await helpers.readBody<SendMessage>(ctx, 'http/send-message');
    const bot = await edge.directory.byAppId(appId);
    if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    const hash = requestHash(input);
    let found: { fresh: boolean; claim: Claim } | undefined = await storedClaim(
      edge.db,
      appId,
      input.idempotency_key,
    );
    const mismatch = () =>
      new BotwireError(
        'BW_ERR_IDEMPOTENCY_MISMATCH',
        'this idempotency key was used for another recipient or message',
      );
    // Before anything is opened or taken: another request under a used key changes nothing.
    if (found && found.claim.request_hash !== hash) throw mismatch();
    // Checked for a new request only: a repeat answers its first result, whatever the flow is now.
    if (input.flow_state !== undefined && !found) checkAnswerState(bot.flow, input.flow_state);
    let recipient = await recipientOf(edge.db, appId, input.to);
    const { to } = input;
    // A template may go to a WhatsApp number that never wrote: its conversation is opened.
    const opens =
      !recipient &&
      'chat_id' in to &&
      input.message.message_type === 'template' &&
      bot.channels.some((c) => c.id === to.channel_id && c.type === 'whatsapp');
    // Room taken in the number's messaging limit, given back when the request is refused after.
    let giveBack: GiveBack = async () => {};
    if (opens) {
      if (!WHATSAPP_NUMBER.test(to.chat_id)) {
        throw new BotwireError(
          'BW_ERR_SCHEMA',
          'a WhatsApp number is 7 to 15 digits with its country code, without + (447700900001)',
        );
      }
      // The template and the room first: a refused request opens nothing.
      await checkedMessage(
        edge.db,
        { channel_id: to.channel_id, channel_type: 'whatsapp' },
        input.message,
      );
      const channel = bot.channels.find((c) => c.id === to.channel_id)!;
      giveBack = await takeRoom(edge.messagingLimit, channel, to.chat_id);
      try {
        await openWhatsAppConversations(edge.db, appId, to.channel_id, [to.chat_id]);
        recipient = await recipientOf(edge.db, appId, to);
      } catch (error) {
        await giveBack();
        throw error;
      }
    }
    if (!recipient) {
      throw new BotwireError(
        'BW_ERR_NOT_FOUND',
        'no conversation of this bot has this recipient: a user must have written to the bot first (on WhatsApp a template may go to any number)',
      );
    }
    const actor = principalOf(ctx).actor;
    if (!found) {
      // Checked (the window, a template's parameters) before the key is claimed: a refused
      // request uses no key. A repeat publishes the message checked then, not checked again.
      const message = await internalOf(edge.db, recipient, input.message);
      const opened = giveBack;
      const started = await takeConversationStart(edge, recipient, message);
      giveBack = async () => {
        await opened();
        await started();
      };
      // The turn id channel sends under: one per bot and key, so its calls are recorded once.
      const turnId = `out:${createHash('sha256').update(`${appId}\0${input.idempotency_key}`).digest('hex').slice(0, 32)}`;
      found = await claimKey(edge.db, {
        app_id: appId,
        idempotency_key: input.idempotency_key,
        request_hash: hash,
        conversation_id: recipient.conversation_id,
        turn_id: turnId,
        sent_by: actor,
        message,
      }).catch(async (error: unknown) => {
        await giveBack();
        throw error;
      });
      // Claimed meanwhile by another request under the same key.
      if (found.claim.request_hash !== hash) {
        await giveBack();
        throw mismatch();
      }
    }
    const { fresh, claim } = found;
    // Published again for a repeated key too: if the first request stopped between its claim and
    // its publish, this one publishes; otherwise the dedupe marker or channel's record of the
    // turn's calls make it nothing. The move goes first: the answer cannot overtake it. A repeat
    // moves only while the message is not in the transcript yet: one repeated a day later must
    // not take the conversation back to a question long answered.
    if (
      input.flow_state !== undefined &&
      (fresh || !(await hasSentRow(edge.db, claim.conversation_id, claim.turn_id)))
    ) {
      const moveId = `${claim.turn_id}:move`;
      await edge.producer.publishOnce(
        'flow',
        [{ id: moveId, message: moveTo(recipient, moveId, input.flow_state) }],
        edge.dedupeTtlS,
      );
    }
    await edge.producer.publishOnce(
      'channel',
      [
        {
          id: claim.turn_id,
          message: channelOutTo(recipient, claim.turn_id, claim.sent_by, [claim.message]),
        },
      ],
      edge.dedupeTtlS,
    );
    ctx.status = 202;
    ctx.body = {
      turn_id: claim.turn_id,
      conversation_id: claim.conversation_id,
      duplicate: !fresh,
    };
  });
}
