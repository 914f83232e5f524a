/**
 * Offline language detection with eld (n-gram model shipped in the package, no network). Short
 * or mixed texts come back unreliable; callers then keep the language they knew.
 *
 * The model is loaded at the first detection, not with the module: it costs a process about
 * 190 MB of resident memory (measured: `eld/medium` imported alone, RSS after a collection), which
 * `channel` never needs with `LANGUAGE_HOP=always` (the default: `language` detects) and the
 * indexer only once a job chooses a collection's language.
 */
import type { ConversationRef } from '../messages.ts';

type Eld = (typeof import('eld/medium'))['eld'];

let detector: Promise<Eld> | undefined;

/**
 * The model, loaded once: at the first detection, or at a component's start where it detects
 * every text (so the first user's turn does not wait for it).
 */
export function loadLanguageDetection(): Promise<Eld> {
  detector ??= import('eld/medium').then((module) => module.eld);
  return detector;
}

export interface Detection {
  /** ISO 639-1 code, or undefined when nothing could be said. */
  language: string | undefined;
  reliable: boolean;
}

export async function detectLanguage(text: string): Promise<Detection> {
  const result = (await loadLanguageDetection()).detect(text);
  const language = result.language || undefined;
  return { language, reliable: language !== undefined && result.isReliable() };
}

/**
 * The user's language for a text: the detected one when detection is reliable (offline, eld),
 * else the one the conversation already knew, else the unreliable guess.
 */
export async function userLanguageOf(
  text: string,
  conversation: ConversationRef,
): Promise<string | undefined> {
  const detection = await detectLanguage(text);
  return detection.reliable
    ? detection.language
    : (conversation.user_language ?? detection.language);
}
