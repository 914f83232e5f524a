/**
 * The console's live events (`GET /v2/events`; their payloads as the OpenAPI description has
 * them) that the conversations pages follow, read defensively: an event that does not have the
 * fields a page needs is ignored rather than trusted. Plain TypeScript (no DOM).
 */
import type { LiveConversation, LiveMessage } from '../../api/types.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasStrings(value: Record<string, unknown>, keys: readonly string[]): boolean {
  return keys.every((key) => typeof value[key] === 'string');
}

export function readLiveMessage(data: unknown): LiveMessage | undefined {
  if (!isRecord(data)) return undefined;
  if (!hasStrings(data, ['app_id', 'conversation_id', 'message_id', 'message_type'])) {
    return undefined;
  }
  if (data.direction !== 'in' && data.direction !== 'out') return undefined;
  return data as unknown as LiveMessage;
}

export function readLiveConversation(data: unknown): LiveConversation | undefined {
  if (!isRecord(data) || !hasStrings(data, ['app_id', 'conversation_id'])) return undefined;
  if (data.state !== undefined && typeof data.state !== 'string') return undefined;
  return data as unknown as LiveConversation;
}

/**
 * A conversation's detail after a `conversation` event: the new state at once (its variables
 * come with the refetch the event also starts).
 */
export function withLiveState<T extends { state: string | null }>(
  detail: T,
  event: LiveConversation,
): T {
  return { ...detail, state: event.state ?? null };
}
