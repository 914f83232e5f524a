/**
 * The live events the console follows (`GET /v2/events`): what each one carries, and the one
 * capped Redis stream they all go to. Each type has a JSON Schema at `schemas/events/<type>.json`.
 */

/** A transcript row was written (by channel). */
export interface MessageEvent {
  app_id: string;
  conversation_id: string;
  channel_type: string;
  direction: 'in' | 'out';
  /** The transcript row's id (a bigint, as text). */
  message_id: string;
  message_type: string;
  /** An outbound row's status (`sent` or `failed`). */
  status?: string;
  /** Who wrote an outbound message when not the bot (an agent, during a handoff). */
  sent_by?: string;
  /** ISO 8601. */
  created_at: string;
}

/** A conversation's flow state changed (by flow). */
export interface ConversationEvent {
  app_id: string;
  conversation_id: string;
  channel_type: string;
  /** The new state's name; absent when there is none. */
  state?: string;
  /** The flow reached an end. */
  ended?: boolean;
}

/** An indexing job's progress or outcome (by indexer). */
export interface IndexJobEvent {
  job_id: string;
  collection: string;
  status: 'queued' | 'running' | 'succeeded' | 'partial' | 'failed' | 'superseded';
  files_total: number;
  files_done: number;
  files_failed: number;
}

/** What happened to a bot (by api). */
export type BotChange = 'created' | 'updated' | 'deleted' | 'flow-published';

export interface BotEvent {
  app_id: string;
  change: BotChange;
}

/** A topic entry was dead-lettered (by any component's consumer). */
export interface DeadLetterEvent {
  topic: string;
  /** Its dead-letter id, `p<n>-<ms>-<seq>` (its partition and its entry there). */
  id: string;
  code: string;
}

/** Where a handoff stands: the status of its row. */
export type HandoffStatus = 'waiting' | 'claimed' | 'returned' | 'closed' | 'fallback';

/**
 * A handoff began waiting, was claimed, released (back to `waiting`) or ended (by api and flow;
 * docs/handoff.md).
 */
export interface HandoffEvent {
  /** Optional echo of the event type, for producers that put it in the payload. */
  type?: 'handoff';
  app_id: string;
  conversation_id: string;
  handoff_id: string;
  status: HandoffStatus;
  queue: string | null;
  /** The actor holding it, when `claimed`. */
  claimed_by?: string;
  /** ISO 8601: when this change happened. */
  at: string;
}

/** Every event type and its payload; the type is the SSE `event:` name. */
export interface EventPayloads {
  message: MessageEvent;
  conversation: ConversationEvent;
  'index-job': IndexJobEvent;
  bot: BotEvent;
  'dead-letter': DeadLetterEvent;
  handoff: HandoffEvent;
}

export type EventType = keyof EventPayloads;

export const EVENT_TYPES: readonly EventType[] = [
  'message',
  'conversation',
  'index-job',
  'bot',
  'dead-letter',
  'handoff',
];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The events stream: one key, its own hash tag (one Redis Cluster slot). */
export function eventsKey(prefix: string): string {
  return `${prefix}:{events}`;
}

/**
 * Fields of a stream entry: `type`, `data` (the payload as JSON) and, when the event belongs to a
 * bot, `app_id`, so a reader can filter without parsing `data`.
 */
export const EVENT_FIELDS = { type: 'type', appId: 'app_id', data: 'data' } as const;
