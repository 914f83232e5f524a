/**
 * Every server call of the conversations pages (the conversation and transcript routes of the
 * admin API), through the console's one client (api/client.ts).
 */
import { api, unwrap } from '../../api/client.ts';
import type {
  AgentMessage,
  ConversationDetail,
  ConversationPage,
  MessagePage,
} from '../../api/types.ts';
import { conversationsApiQuery, type ConversationFilters } from './conversation-filters.ts';

/** Conversations per page of the list. */
export const CONVERSATIONS_PAGE = 25;
/** Transcript rows per page (the API's most). */
export const MESSAGES_PAGE = 100;

export async function listConversations(
  appId: string,
  filters: ConversationFilters,
  after?: string,
): Promise<ConversationPage> {
  return unwrap(
    await api.GET('/v2/bots/{app_id}/conversations', {
      params: {
        path: { app_id: appId },
        query: conversationsApiQuery(filters, CONVERSATIONS_PAGE, after),
      },
    }),
  );
}

export async function getConversation(id: string): Promise<ConversationDetail> {
  return unwrap(await api.GET('/v2/conversations/{id}', { params: { path: { id } } }));
}

export async function listMessages(id: string, after?: string): Promise<MessagePage> {
  return unwrap(
    await api.GET('/v2/conversations/{id}/messages', {
      params: { path: { id }, query: { limit: MESSAGES_PAGE, after: after || undefined } },
    }),
  );
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

/**
 * The bot writes first to the user of `conversationId` (docs/outbound.md); the same `key` again
 * sends nothing more.
 */
export async function sendFirst(
  appId: string,
  conversationId: string,
  key: string,
  message: AgentMessage,
  flowState?: string,
): Promise<void> {
  unwrap(
    await api.POST('/v2/bots/{app_id}/messages', {
      params: { path: { app_id: appId } },
      body: {
        idempotency_key: key,
        to: { conversation_id: conversationId },
        message,
        ...(flowState ? { flow_state: flowState } : {}),
      },
    }),
  );
}
