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
  /** Its id in the dead-letter stream. */
  id: string;
  code: string;
}

/** A handoff opened, was claimed, or ended (by flow, and by api for claims). */
export interface HandoffEvent {
  app_id: string;
  conversation_id: string;
  handoff_id: string;
  status: 'waiting' | 'claimed' | 'returned' | 'closed' | 'fallback';
  /** The queue it waits in; null when none. */
  queue: string | null;
  /** When it happened, ISO 8601. */
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
