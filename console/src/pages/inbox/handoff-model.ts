/**
 * The inbox's plain logic (no DOM, unit tested): who holds a handoff, how long it has waited,
 * what its status reads as, its live events read defensively, and reply buttons typed as lines.
 */
// Not api/accounts.ts: its query hooks would bring the DOM's types into the unit tests' program.
import type { components } from '../../api/schema.d.ts';
import type { HandoffItem, LiveHandoff } from '../../api/types.ts';
import { actorName } from '../conversations/message-model.ts';

type Me = components['schemas']['me'];

/**
 * Whether the signed-in person holds the handoff: an account holds it under whichever session or
 * token it claimed with (`claimed_account`); the admin key, which has no account, by its actor.
 */
export function isHolder(
  handoff: Pick<HandoffItem, 'status' | 'claimed_by' | 'claimed_account'>,
  me: Pick<Me, 'actor' | 'account_id'>,
): boolean {
  if (handoff.status !== 'claimed') return false;
  return me.account_id !== null
    ? handoff.claimed_account === me.account_id
    : (handoff.claimed_account ?? null) === null && handoff.claimed_by === me.actor;
}

/** Whether a handoff is still open (waiting or claimed). */
export function isOpen(status: HandoffItem['status']): boolean {
  return status === 'waiting' || status === 'claimed';
}

/**
 * Seconds waited, ticking: the server's `waiting_s` as fetched at `fetchedAtMs`, plus the time
 * since while it still waits (a claim or an end stops the clock; the server says so on refetch).
 * Counted from the fetch, not from `created_at`, so the browser's clock being off does not show.
 */
export function waitedSeconds(
  handoff: Pick<HandoffItem, 'status' | 'waiting_s'>,
  fetchedAtMs: number,
  nowMs: number,
): number {
  if (handoff.status !== 'waiting') return handoff.waiting_s;
  return handoff.waiting_s + Math.max(0, Math.floor((nowMs - fetchedAtMs) / 1000));
}

/** A duration as read at a glance: "45 s", "3 min 05 s", "2 h 10 min". */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min ${String(s % 60).padStart(2, '0')} s`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** Who holds it, as a person reads it: "you", their email, or "the admin key". */
export function holderText(
  handoff: Pick<HandoffItem, 'status' | 'claimed_by' | 'claimed_account'>,
  me: Pick<Me, 'actor' | 'account_id'> | undefined,
): string {
  if (me && isHolder(handoff, me)) return 'you';
  return handoff.claimed_by ? actorName(handoff.claimed_by) : 'someone';
}

/** The status as a person reads it. */
export function statusText(
  handoff: Pick<
    HandoffItem,
    'status' | 'claimed_by' | 'claimed_account' | 'return_state' | 'fallback_state'
  >,
  me: Pick<Me, 'actor' | 'account_id'> | undefined,
): string {
  switch (handoff.status) {
    case 'waiting':
      return 'Waiting for an agent';
    case 'claimed':
      return `Claimed by ${holderText(handoff, me)}`;
    case 'returned':
      return `Handed back to the bot${handoff.return_state ? ` at ${handoff.return_state}` : ''}`;
    case 'closed':
      return 'Closed';
    case 'fallback':
      return `No agent in time: the bot went on at ${handoff.fallback_state ?? 'its fallback state'}`;
  }
}

/** The user's name, else their chat id. */
export function personOf(handoff: {
  first_name?: string | null;
  last_name?: string | null;
  chat_id?: string;
}): string {
  const name = [handoff.first_name, handoff.last_name].filter(Boolean).join(' ');
  return name || handoff.chat_id || 'unknown user';
}

const STATUSES = new Set(['waiting', 'claimed', 'returned', 'closed', 'fallback']);

/** A `handoff` live event when it names what the inbox needs; else undefined. */
export function readLiveHandoff(data: unknown): LiveHandoff | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const event = data as Record<string, unknown>;
  const named = ['app_id', 'conversation_id', 'handoff_id'].every(
    (key) => typeof event[key] === 'string',
  );
  if (!named || typeof event.status !== 'string' || !STATUSES.has(event.status)) return undefined;
  return event as unknown as LiveHandoff;
}

/**
 * Reply buttons typed one title per line: blank lines dropped, ids `b1`, `b2`, … (the user's
 * press is recorded by id; the transcript shows it by title).
 */
export function buttonsFromLines(text: string): { id: string; title: string }[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((title, i) => ({ id: `b${i + 1}`, title }));
}
