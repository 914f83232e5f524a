/**
 * The test chat kept in the tab's sessionStorage per bot and per flow tried (`draft`, `current`
 * or a version number), so a reload goes on with the same conversation and a new tab starts its
 * own. A stored chat is used only while what it tried is still what is asked for: the draft at
 * the revision it started with, the published version it started on. A saved draft or a publish
 * gets a fresh chat. Plain TypeScript (no DOM): the storage is passed in.
 */
import type { TestChatInfo } from '../../api/types.ts';
import type { Wanted } from './test-chat-api.ts';

/** The part of `Storage` used. */
export interface SessionStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** What is kept of a chat: its id, where its flow came from, its conversation once known. */
export interface StoredChat {
  chat_id: string;
  source: TestChatInfo['source'];
  conversation_id: string | null;
}

export function storageKey(appId: string, wanted: Wanted): string {
  return `botwire.test-chat.${appId}.${wanted}`;
}

const isSource = (value: unknown): value is StoredChat['source'] => {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.draft === 'number' || typeof v.version === 'number';
};

/**
 * The stored chat for `wanted`, or undefined when none is stored, it is not one (edited, old
 * format), or it ran something else than `at`: the draft's revision (`draft`), the published
 * version (`current`).
 */
export function readChat(
  store: SessionStore,
  appId: string,
  wanted: Wanted,
  at?: number,
): StoredChat | undefined {
  const raw = store.getItem(storageKey(appId, wanted));
  if (raw === null) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<StoredChat>;
    if (
      typeof value.chat_id !== 'string' ||
      !isSource(value.source) ||
      (value.conversation_id !== null && typeof value.conversation_id !== 'string')
    ) {
      return undefined;
    }
    const source = value.source as { draft?: number; version?: number };
    if (wanted === 'draft' && source.draft !== at) return undefined;
    if (wanted === 'current' && source.version !== at) return undefined;
    return value as StoredChat;
  } catch {
    // Not JSON: treated as nothing stored.
    return undefined;
  }
}

export function writeChat(store: SessionStore, appId: string, wanted: Wanted, chat: StoredChat) {
  store.setItem(storageKey(appId, wanted), JSON.stringify(chat));
}

/**
 * 128 random bits as hex. `crypto.getRandomValues`, not `randomUUID`: the latter exists only in
 * secure contexts, and a console reached over plain http on a private address is not one.
 */
function randomHex(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A client message id for the pipeline's dedupe: printable ASCII, at most 64 characters. */
export function newClientMessageId(random: () => string = randomHex): string {
  return `console-${random()}`.slice(0, 64);
}
