/**
 * Every server call of the test chat: the web channel as a visitor (the WEB contract:
 * `POST /v2/web/:app_id/sessions`, `POST /v2/callback/web/:app_id`, and the visitor's SSE stream)
 * and, with the console's session, the conversation's flow state (`GET /v2/conversations/:id`).
 */
import { callJson } from '../conversations/api-call.ts';
import type { ConversationDetail } from '../conversations/conversations-api.ts';
import type { WebSession } from './chat-session.ts';

/** A new visitor, or with `token` the same visitor with a fresh token. */
export function createSession(appId: string, token?: string): Promise<WebSession> {
  return callJson(
    'POST',
    `/v2/web/${encodeURIComponent(appId)}/sessions`,
    token === undefined ? {} : { token },
  );
}

/** Exactly one of `text`, `button_id`, `list_row_id`. */
export type VisitorInput = { text: string } | { button_id: string } | { list_row_id: string };

export function sendMessage(
  appId: string,
  token: string,
  clientMessageId: string,
  input: VisitorInput,
): Promise<{ accepted: boolean; duplicate: boolean }> {
  return callJson(
    'POST',
    `/v2/callback/web/${encodeURIComponent(appId)}`,
    { client_message_id: clientMessageId, ...input },
    { authorization: `Bearer ${token}` },
  );
}

/** The visitor's stream; EventSource cannot send headers, so the token rides in the query. */
export function visitorEventsUrl(appId: string, token: string): string {
  return `/v2/web/${encodeURIComponent(appId)}/events?${new URLSearchParams({ token })}`;
}

export function getConversation(id: string): Promise<ConversationDetail> {
  return callJson('GET', `/v2/conversations/${encodeURIComponent(id)}`);
}
