/**
 * language_in: detect the user's language offline, translate their text into the bot's language
 * when a provider is configured, and pass it to `flow`. language_out: translate the bot's messages
 * into the user's language and pass them to `channel`.
 *
 * Without a provider, text passes through unchanged and the flow message says so
 * (`translation: "none"`). A provider failure does not hold the conversation up: the text passes
 * through untranslated (`translation: "failed"`) and the failure is logged.
 *
 * Voice: without a speech provider, a voice message is answered at once, in the bot's language,
 * that voice is not supported.
 */
import type { MessageContext } from '../shared/bus/consumer.ts';
import type { Outgoing } from '../shared/bus/producer.ts';
import type { ConversationRef, InternalMessage } from '../shared/messages.ts';
import { detectLanguage } from './detect.ts';
import type { Translator } from './translator.ts';

export interface LanguageMessage {
  source: string;
  turn_id: string;
  ordering_key?: string;
  intent: 'language_in' | 'language_out';
  conversation: ConversationRef;
  message?: InternalMessage;
  messages?: InternalMessage[];
  reply_with_voice?: boolean;
}

export interface LanguageDeps {
  /** Undefined when no translation provider is configured. */
  translator: Translator | undefined;
}

export const VOICE_UNSUPPORTED =
  "Sorry, I can't listen to voice messages yet. Please type your message.";

type Translation = 'none' | 'same_language' | 'translated' | 'failed';

async function translate(
  deps: LanguageDeps,
  text: string,
  from: string | undefined,
  to: string,
  context: MessageContext,
): Promise<{ text: string; translation: Translation }> {
  if (!deps.translator) return { text, translation: 'none' };
  if (!from || from === to) return { text, translation: 'same_language' };
  try {
    return { text: await deps.translator.translate(text, from, to), translation: 'translated' };
  } catch (error) {
    context.log.warn(
      { err: (error as Error).message, from, to },
      'translation failed; passing the text through',
    );
    return { text, translation: 'failed' };
  }
}

async function handleIn(
  deps: LanguageDeps,
  input: LanguageMessage,
  context: MessageContext,
): Promise<Outgoing[]> {
  const { conversation, message } = input;
  const base = {
    source: 'language',
    turn_id: input.turn_id,
    ordering_key: input.ordering_key ?? conversation.conversation_id,
  };
  if (message?.message_type === 'audio') {
    context.log.info('voice message without a speech provider; telling the user');
    return [
      {
        topic: 'channel',
        message: {
          ...base,
          intent: 'channel_out',
          bot_output: {
            conversation,
            messages: [{ message_type: 'text', text: VOICE_UNSUPPORTED }],
          },
        },
      },
    ];
  }
  if (message?.message_type !== 'text') {
    return [
      {
        topic: 'flow',
        message: { ...base, intent: 'user_input', conversation, ...(message ? { message } : {}) },
      },
    ];
  }
  const detection = detectLanguage(message.text);
  const userLanguage = detection.reliable
    ? detection.language
    : (conversation.user_language ?? detection.language);
  const { text, translation } = await translate(
    deps,
    message.text,
    userLanguage,
    conversation.bot_language,
    context,
  );
  return [
    {
      topic: 'flow',
      message: {
        ...base,
        intent: 'user_input',
        conversation: {
          ...conversation,
          ...(userLanguage ? { user_language: conversation.user_language ?? userLanguage } : {}),
        },
        message: { message_type: 'text', text },
        original_text: message.text,
        ...(userLanguage ? { detected_language: userLanguage } : {}),
        translation,
      },
    },
  ];
}

async function translateMessage(
  deps: LanguageDeps,
  message: InternalMessage,
  from: string,
  to: string | undefined,
  context: MessageContext,
): Promise<InternalMessage> {
  if (!to || to === from || !deps.translator) return message;
  const t = async (text: string) => (await translate(deps, text, from, to, context)).text;
  switch (message.message_type) {
    case 'text':
      return { ...message, text: await t(message.text) };
    case 'button':
      return {
        ...message,
        text: await t(message.text),
        buttons: await Promise.all(
          message.buttons.map(async (b) => ({ ...b, title: await t(b.title) })),
        ),
      };
    case 'option_list':
      return {
        ...message,
        text: await t(message.text),
        button_text: await t(message.button_text),
        sections: await Promise.all(
          message.sections.map(async (s) => ({
            ...s,
            ...(s.title ? { title: await t(s.title) } : {}),
            rows: await Promise.all(
              s.rows.map(async (r) => ({
                ...r,
                title: await t(r.title),
                ...(r.description ? { description: await t(r.description) } : {}),
              })),
            ),
          })),
        ),
      };
    case 'image':
    case 'document':
      return message.caption ? { ...message, caption: await t(message.caption) } : message;
    default:
      return message;
  }
}

async function handleOut(
  deps: LanguageDeps,
  input: LanguageMessage,
  context: MessageContext,
): Promise<Outgoing[]> {
  const { conversation } = input;
  const messages = await Promise.all(
    (input.messages ?? []).map((m) =>
      translateMessage(deps, m, conversation.bot_language, conversation.user_language, context),
    ),
  );
  return [
    {
      topic: 'channel',
      message: {
        source: 'language',
        turn_id: input.turn_id,
        ordering_key: input.ordering_key ?? conversation.conversation_id,
        intent: 'channel_out',
        bot_output: { conversation, messages },
      },
    },
  ];
}

export function handleLanguage(
  deps: LanguageDeps,
  input: LanguageMessage,
  context: MessageContext,
): Promise<Outgoing[]> {
  return input.intent === 'language_in'
    ? handleIn(deps, input, context)
    : handleOut(deps, input, context);
}
