/**
 * What `language` does to a conversation's messages when it has neither a translation nor a
 * speech provider, as plain functions, so that `channel` and `flow` can do the same in-process
 * and skip the `language` hop (`LANGUAGE_HOP=when_needed`, docs/pipeline.md). `language` builds
 * its messages with these too, so both paths say the same thing. Detection (`userLanguageOf`)
 * is in `detect.ts`, so that `flow`, which needs none, does not load its model.
 */
import type { ConversationRef, InternalMessage } from '../messages.ts';

/** The notice a voice message gets when no speech provider is configured. */
export const VOICE_UNSUPPORTED =
  "Sorry, I can't listen to voice messages yet. Please type your message.";

/** What `language` did to the user's text, as the flow message says it. */
export type Translation = 'none' | 'same_language' | 'translated' | 'failed';

/** The fields every message of a turn carries on. */
export interface TurnBase {
  source: string;
  turn_id: string;
  ordering_key: string;
}

/** The `flow` message for a user's text (`text` already in the bot's language). */
export function userTextForFlow(input: {
  base: TurnBase;
  conversation: ConversationRef;
  /** The user's own words. */
  original: string;
  text: string;
  userLanguage: string | undefined;
  translation: Translation;
  voice?: boolean;
}): Record<string, unknown> {
  const { base, conversation, original, text, userLanguage, translation, voice } = input;
  return {
    ...base,
    intent: 'user_input',
    conversation: {
      ...conversation,
      ...(userLanguage ? { user_language: conversation.user_language ?? userLanguage } : {}),
    },
    message: { message_type: 'text', text },
    original_text: original,
    ...(userLanguage ? { detected_language: userLanguage } : {}),
    translation,
    ...(voice ? { voice: true } : {}),
  };
}

/** The `channel` message that sends `messages` to the conversation's user. */
export function botOutputForChannel(
  base: TurnBase,
  conversation: ConversationRef,
  messages: InternalMessage[],
): Record<string, unknown> {
  return { ...base, intent: 'channel_out', bot_output: { conversation, messages } };
}
