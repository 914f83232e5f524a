/**
 * channel_in: a platform payload becomes an internal message. The user and conversation are
 * created or found, the message is logged for the transcript, a Telegram button press is
 * answered, and the message is routed: text and voice to `language` (detection, translation,
 * speech to text), button presses, dialogs, media and locations straight to `flow`.
 *
 * With `skipLanguage` (LANGUAGE_HOP=when_needed and no translation or speech provider), channel
 * does what `language` would: it detects the language of a text offline and passes it to `flow`
 * untranslated (`translation: "none"`), and answers a voice message that voice is not supported.
 */
import type { BotDirectory } from '../shared/bots/directory.ts';
import { streamsReplies, type ChannelKind } from '../shared/bots/types.ts';
import type { Outgoing } from '../shared/bus/producer.ts';
import type { MessageContext } from '../shared/bus/delivery.ts';
import { optChoiceOf, recordOptChoice, type OptWords } from './opt-out.ts';
import type { Knex } from '../shared/db.ts';
import {
  botOutputForChannel,
  userTextForFlow,
  VOICE_UNSUPPORTED,
} from '../shared/languages/pass-through.ts';
import { userLanguageOf } from '../shared/languages/detect.ts';
import { storableDeep } from '../shared/pg-text.ts';
import {
  fromTelegram,
  fromWeb,
  fromWhatsApp,
  type Inbound,
  type TelegramUpdate,
  type WebInput,
  type WhatsAppInput,
} from './inbound.ts';
import type { VisitorStreams } from '../shared/web/visitor-stream.ts';
import type { ConversationRef } from '../shared/messages.ts';
import type { TelegramApi } from './platform-api.ts';
import { recordInbound, recordStatus, type InboundInput, type RecordedInbound } from './store.ts';

export interface ChannelIn {
  source: string;
  turn_id: string;
  ordering_key?: string;
  intent: 'channel_in';
  bot_input: {
    kind: 'update' | 'message' | 'status' | 'web';
    app_id: string;
    channel_id: string;
    channel_type: ChannelKind;
    /** kind `web`: the visitor's message (a web visitor's, or an operator's in a test chat). */
    web?: WebInput;
    update?: TelegramUpdate;
    contact?: WhatsAppInput['contact'];
    message?: WhatsAppInput['message'];
    status?: {
      id: string;
      status: string;
      errors?: { title?: string; message?: string; code?: unknown }[];
    };
  };
}

export interface InboundDeps {
  db: Knex;
  directory: BotDirectory;
  telegram: TelegramApi;
  /** Records an inbound message; `recordInbound` one by one when absent. */
  record?: (input: InboundInput) => Promise<RecordedInbound>;
  /** The web visitors' event streams: a visitor's own messages are shown there too. */
  web?: VisitorStreams;
  /** Do language's pass-through work here instead of publishing to `language`. @defaultValue false */
  skipLanguage?: boolean;
  /** The words that opt a user out of broadcasts and back in (`opt-out.ts`); none when absent. */
  optWords?: OptWords;
}

export async function handleInbound(
  deps: InboundDeps,
  input: ChannelIn,
  context: MessageContext,
): Promise<Outgoing[]> {
  const { bot_input: payload, turn_id: turnId } = input;
  if (payload.kind === 'status' && payload.status) {
    // The platform's words, stored as text: mended like a user's message (below).
    const { id, status, errors } = storableDeep(payload.status);
    const reason = errors?.map((e) => e.message ?? e.title).join('; ');
    // The platform's error code, as analytics counts the failure: kept only when it is one.
    const raw = errors?.[0]?.code;
    const code = typeof raw === 'number' || typeof raw === 'string' ? String(raw) : '';
    const updated = await recordStatus(deps.db, payload.channel_id, id, status, {
      error: reason,
      ...(/^[A-Za-z0-9_]{1,32}$/.test(code) ? { code } : {}),
    });
    context.log.debug({ status, updated }, 'delivery status recorded');
    return [];
  }
  const found = await deps.directory.channelOf(payload.app_id, payload.channel_id);
  if (!found) {
    context.log.warn(
      { appId: payload.app_id },
      'message for a bot or channel that no longer exists; dropped',
    );
    return [];
  }
  const { bot, channel } = found;
  let inbound: Inbound | undefined;
  if (payload.kind === 'update' && payload.update) inbound = fromTelegram(payload.update);
  if (payload.kind === 'message' && payload.message)
    inbound = fromWhatsApp({ contact: payload.contact, message: payload.message });
  if (payload.kind === 'web' && payload.web) inbound = fromWeb(payload.web);
  if (!inbound) {
    context.log.info(
      { kind: payload.kind },
      'content botwire does not handle (sticker, reaction, poll); dropped',
    );
    return [];
  }
  // Platforms pass on what users type; Postgres refuses U+0000 and lone surrogates in text and
  // jsonb. Mended here, the transcript, flow's state and every later step see the same text.
  const mended = storableDeep(inbound);
  if (mended !== inbound) {
    context.log.warn(
      'the message held U+0000 or a lone UTF-16 surrogate: dropped or replaced by U+FFFD',
    );
    inbound = mended;
  }

  if (inbound.callbackQueryId && channel.secrets.type === 'telegram') {
    // Stops the button's loading spinner. Answering twice only earns an error, so failures are
    // logged, not retried: the reply itself matters more than the spinner.
    await deps.telegram
      .call(channel.secrets.details.bot_token, 'answerCallbackQuery', {
        callback_query_id: inbound.callbackQueryId,
      })
      .catch((error: unknown) =>
        context.log.warn({ err: (error as Error).message }, 'answerCallbackQuery failed'),
      );
  }

  const record = deps.record ?? ((row) => recordInbound(deps.db, row));
  const { conversation, fresh } = await record({ bot, channel, inbound, turnId });
  // Also for a redelivery: the first attempt may have died before it showed the message, and
  // the append is once per client message id anyway.
  if (streamsReplies(channel.type)) await echoWeb(deps, conversation, inbound, turnId);
  const said = inbound.message.message_type === 'text' ? inbound.message.text : undefined;
  const choice = deps.optWords && optChoiceOf(said, deps.optWords);
  // A redelivery too: the first attempt may have died before it recorded the choice.
  if (choice) await recordOptChoice(deps.db, conversation.conversation_id, choice);
  if (!fresh) {
    context.log.info(
      { platformMessageId: inbound.platformMessageId },
      'platform redelivered a message already handled; dropped',
    );
    return [];
  }
  // A switched-off bot answers no one but its test chats (a bot is tried before it goes live).
  if (!bot.active && channel.type !== 'console') return [];
  const turn = {
    source: 'channel',
    turn_id: turnId,
    ordering_key: input.ordering_key ?? conversation.conversation_id,
  };
  const base = { ...turn, conversation };
  const message = inbound.message;
  if (deps.skipLanguage && message.message_type === 'text') {
    const userLanguage = await userLanguageOf(message.text, conversation);
    return [
      {
        topic: 'flow',
        message: userTextForFlow({
          base: turn,
          conversation,
          original: message.text,
          text: message.text,
          userLanguage,
          translation: 'none',
        }),
      },
    ];
  }
  if (deps.skipLanguage && message.message_type === 'audio') {
    context.log.info('voice message without a speech provider; telling the user');
    // In English: without a translator the notice cannot be put in the user's language.
    return [
      {
        topic: 'channel',
        message: botOutputForChannel(turn, conversation, [
          { message_type: 'text', text: VOICE_UNSUPPORTED },
        ]),
      },
    ];
  }
  if (message.message_type === 'text' || message.message_type === 'audio') {
    return [{ topic: 'language', message: { ...base, intent: 'language_in', message } }];
  }
  if (message.message_type === 'dialog') {
    return [{ topic: 'flow', message: { ...base, intent: 'dialog', message } }];
  }
  return [{ topic: 'flow', message: { ...base, intent: 'user_input', message } }];
}

/**
 * Shows a web visitor's own message in their event stream, before the bot's reply to it, so every
 * tab of the visitor shows both sides of the conversation in order.
 */
async function echoWeb(
  deps: InboundDeps,
  conversation: ConversationRef,
  inbound: Inbound,
  turnId: string,
): Promise<void> {
  if (!deps.web) throw new Error('channel was started without the web visitor streams');
  const { message } = inbound;
  await deps.web.append(conversation.app_id, inbound.chatId, {
    id: `in:${inbound.platformMessageId}`,
    conversation_id: conversation.conversation_id,
    direction: 'in',
    turn_id: turnId,
    message_type: message.message_type,
    ...(message.message_type === 'text' ? { text: message.text } : {}),
    ...(message.message_type === 'interactive_reply' ? { choice_id: message.choice_id } : {}),
    created_at: new Date().toISOString(),
  });
}
