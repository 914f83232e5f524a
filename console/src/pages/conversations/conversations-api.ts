/**
 * Every server call of the conversations pages (contract: OPS in the console's API notes, and the
 * transcript routes of the admin API), through `fetch` with the console's session cookie.
 */
import { callJson } from './api-call.ts';
import { conversationsApiQuery, type ConversationFilters } from './conversation-filters.ts';
import type { TranscriptRow } from './message-model.ts';

export interface Page<T> {
  items: T[];
  /** Pass as `after` for the next page; null on the last page. */
  next_after: string | null;
}

/** A row of `GET /v2/bots/:app_id/conversations`. */
export interface ConversationSummary {
  id: string;
  channel_id: string;
  channel_type?: string;
  chat_id: string;
  language: string | null;
  created_at: string;
  last_message_at: string;
  user_pid: string | null;
  first_name: string | null;
  last_name: string | null;
  /** The flow state the conversation is in; null before its first turn or after an end. */
  state?: string | null;
  last_message_preview?: string | null;
}

/** `GET /v2/conversations/:id`. */
export interface ConversationDetail {
  id: string;
  app_id: string;
  channel_type: string;
  chat_id: string;
  state: string | null;
  variables: Record<string, unknown>;
  created_at: string;
  last_message_at: string;
}

/** Conversations per page of the list. */
export const CONVERSATIONS_PAGE = 25;
/** Transcript rows per page (the API's most). */
export const MESSAGES_PAGE = 100;

export function listConversations(
  appId: string,
  filters: ConversationFilters,
  after?: string,
): Promise<Page<ConversationSummary>> {
  const query = conversationsApiQuery(filters, CONVERSATIONS_PAGE, after);
  return callJson('GET', `/v2/bots/${encodeURIComponent(appId)}/conversations?${query}`);
}

export function getConversation(id: string): Promise<ConversationDetail> {
  return callJson('GET', `/v2/conversations/${encodeURIComponent(id)}`);
}

export function listMessages(id: string, after?: string): Promise<Page<TranscriptRow>> {
  const query = new URLSearchParams({ limit: String(MESSAGES_PAGE) });
  if (after) query.set('after', after);
  return callJson('GET', `/v2/conversations/${encodeURIComponent(id)}/messages?${query}`);
}

/** The console's live events of one bot that change its conversations. */
export function conversationEventsUrl(appId: string): string {
  const query = new URLSearchParams({ types: 'message,conversation', app_id: appId });
  return `/v2/events?${query}`;
}

/** Query keys, so live events invalidate exactly what they change. */
export const conversationKeys = {
  list: (appId: string) => ['conversations', appId] as const,
  filtered: (appId: string, filters: ConversationFilters) =>
    ['conversations', appId, filters] as const,
  detail: (id: string) => ['conversation-detail', id] as const,
  messages: (id: string) => ['conversation-messages', id] as const,
};
