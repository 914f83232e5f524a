/**
 * language_in: detect the user's language offline, translate their text into the bot's language
 * when a provider is configured, and pass it to `flow`. language_out: translate the bot's messages
 * into the user's language and pass them to `channel`.
 *
 * Without a provider, text passes through unchanged and the flow message says so
 * (`translation: "none"`). A provider failure does not hold the conversation up: the text passes
 * through untranslated (`translation: "failed"`) and the failure is logged.
 *
 * Voice: with a speech provider, a voice message is transcribed and goes on as text marked
 * `voice: true`, and the reply to it is spoken (`voice.ts`). Without one, or when the words cannot
 * be had, the user is answered at once that voice is not supported or was not understood.
 */
import type { MessageContext } from '../shared/bus/delivery.ts';
import type { Outgoing } from '../shared/bus/producer.ts';
import type { ConversationRef, InternalMessage } from '../shared/messages.ts';
import {
  botOutputForChannel,
  userTextForFlow,
  VOICE_UNSUPPORTED,
  type Translation,
} from '../shared/languages/pass-through.ts';
import { userLanguageOf } from '../shared/languages/detect.ts';
import type { Translator } from './translator.ts';
import { hear, speak, VOICE_NOT_UNDERSTOOD, type VoiceDeps } from './voice.ts';

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
  /** Undefined when no speech provider is configured. */
  voice?: VoiceDeps | undefined;
}

export { VOICE_UNSUPPORTED };

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
  const tell = async (notice: string): Promise<Outgoing[]> => {
    // The notices are written in English; they go out in the user's language when it is known.
    const to = conversation.user_language ?? conversation.bot_language;
    const { text } = await translate(deps, notice, 'en', to, context);
    return [
      {
        topic: 'channel',
        message: botOutputForChannel(base, conversation, [{ message_type: 'text', text }]),
      },
    ];
  };
  let text: string;
  let voice = false;
  if (message?.message_type === 'audio') {
    if (!deps.voice) {
      context.log.info('voice message without a speech provider; telling the user');
      return tell(VOICE_UNSUPPORTED);
    }
    const heard = await hear(deps.voice, conversation, message.media, context);
    if (heard === undefined) return tell(VOICE_NOT_UNDERSTOOD);
    text = heard;
    voice = true;
  } else if (message?.message_type === 'text') {
    text = message.text;
  } else {
    return [
      {
        topic: 'flow',
        message: { ...base, intent: 'user_input', conversation, ...(message ? { message } : {}) },
      },
    ];
  }
  const userLanguage = await userLanguageOf(text, conversation);
  const translated = await translate(deps, text, userLanguage, conversation.bot_language, context);
  return [
    {
      topic: 'flow',
      message: userTextForFlow({
        base,
        conversation,
        original: text,
        text: translated.text,
        userLanguage,
        translation: translated.translation,
        voice,
      }),
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
  const translated = await Promise.all(
    (input.messages ?? []).map((m) =>
      translateMessage(deps, m, conversation.bot_language, conversation.user_language, context),
    ),
  );
  const messages =
    input.reply_with_voice && deps.voice
      ? await speak(
          deps.voice,
          translated,
          conversation.user_language ?? conversation.bot_language,
          context,
        )
      : translated;
  const base = {
    source: 'language',
    turn_id: input.turn_id,
    ordering_key: input.ordering_key ?? conversation.conversation_id,
  };
  return [{ topic: 'channel', message: botOutputForChannel(base, conversation, messages) }];
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
