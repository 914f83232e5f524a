/**
 * The test chat's web visitor session (`POST /v2/web/:app_id/sessions`), kept in the tab's
 * sessionStorage per bot, so a reload keeps talking as the same visitor and a new tab starts as a
 * new one. Plain TypeScript (no DOM): the storage is passed in.
 */
import type { WebSession } from '../../api/types.ts';

/** The part of `Storage` used. */
export interface SessionStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A token is renewed this long before it expires (ms): one hour. */
export const RENEW_BEFORE_MS = 60 * 60 * 1000;

export function storageKey(appId: string): string {
  return `botwire.test-chat.${appId}`;
}

/** A stored session, or undefined when none is stored or it is not one (edited, old format). */
export function readSession(store: SessionStore, appId: string): WebSession | undefined {
  const raw = store.getItem(storageKey(appId));
  if (raw === null) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<WebSession>;
    if (
      typeof value.visitor_id === 'string' &&
      typeof value.token === 'string' &&
      typeof value.expires_at === 'string' &&
      (value.conversation_id === null || typeof value.conversation_id === 'string')
    ) {
      return value as WebSession;
    }
  } catch {
    // Not JSON: treated as nothing stored.
  }
  return undefined;
}

export function writeSession(store: SessionStore, appId: string, session: WebSession): void {
  store.setItem(storageKey(appId), JSON.stringify(session));
}

export function forgetSession(store: SessionStore, appId: string): void {
  store.removeItem(storageKey(appId));
}

/** True when the token expires within `RENEW_BEFORE_MS` of `now` (or its time is unreadable). */
export function needsRenewal(session: WebSession, now: Date): boolean {
  const expires = Date.parse(session.expires_at);
  return Number.isNaN(expires) || expires - now.getTime() < RENEW_BEFORE_MS;
}

/**
 * 128 random bits as hex. `crypto.getRandomValues`, not `randomUUID`: the latter exists only in
 * secure contexts, and a console reached over plain http on a private address is not one.
 */
function randomHex(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A client message id for the web channel's dedupe: printable ASCII, at most 64 characters. */
export function newClientMessageId(random: () => string = randomHex): string {
  return `console-${random()}`.slice(0, 64);
}
