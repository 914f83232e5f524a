/**
 * The test chat's calls of the web channel as a visitor (`POST /v2/web/:app_id/sessions`,
 * `POST /v2/callback/web/:app_id`, and the visitor's SSE stream), through the console's one client
 * (api/client.ts). The conversation's flow state comes from the conversations pages' call.
 */
import { api, unwrap } from '../../api/client.ts';
import type { VisitorAccepted, VisitorMessage, WebSession } from '../../api/types.ts';

/** A new visitor, or with `token` the same visitor with a fresh token. */
export async function createSession(appId: string, token?: string): Promise<WebSession> {
  return unwrap(
    await api.POST('/v2/web/{app_id}/sessions', {
      params: { path: { app_id: appId } },
      body: token === undefined ? {} : { token },
    }),
  );
}

/** Exactly one of `text`, `button_id`, `list_row_id` (the body's `oneOf`). */
export type VisitorInput =
  | Required<Pick<VisitorMessage, 'text'>>
  | Required<Pick<VisitorMessage, 'button_id'>>
  | Required<Pick<VisitorMessage, 'list_row_id'>>;

export async function sendMessage(
  appId: string,
  token: string,
  clientMessageId: string,
  input: VisitorInput,
): Promise<VisitorAccepted> {
  return unwrap(
    await api.POST('/v2/callback/web/{app_id}', {
      params: { path: { app_id: appId } },
      headers: { authorization: `Bearer ${token}` },
      body: { client_message_id: clientMessageId, ...input },
    }),
  );
}

/** The visitor's stream; EventSource cannot send headers, so the token rides in the query. */
export function visitorEventsUrl(appId: string, token: string): string {
  return `/v2/web/${encodeURIComponent(appId)}/events?${new URLSearchParams({ token })}`;
}
