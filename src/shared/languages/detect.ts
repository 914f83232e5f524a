/**
 * Offline language detection with eld (n-gram model shipped in the package, no network). Short
 * or mixed texts come back unreliable; callers then keep the language they knew.
 */
import { eld } from 'eld/medium';
import type { ConversationRef } from '../messages.ts';

export interface Detection {
  /** ISO 639-1 code, or undefined when nothing could be said. */
  language: string | undefined;
  reliable: boolean;
}

export function detectLanguage(text: string): Detection {
  const result = eld.detect(text);
  const language = result.language || undefined;
  return { language, reliable: language !== undefined && result.isReliable() };
}

/**
 * The user's language for a text: the detected one when detection is reliable (offline, eld),
 * else the one the conversation already knew, else the unreliable guess.
 */
export function userLanguageOf(text: string, conversation: ConversationRef): string | undefined {
  const detection = detectLanguage(text);
  return detection.reliable
    ? detection.language
    : (conversation.user_language ?? detection.language);
}
