/**
 * The test chat's calls (`POST /v2/bots/:app_id/test-chats`, its messages and its SSE stream),
 * through the console's one client (api/client.ts), under the console's session: no visitor token
 * and no origin list, so it works wherever the console is opened. The conversation's flow state
 * comes from the conversations pages' call.
 */
import { api, unwrap } from '../../api/client.ts';
import type { TestChatAccepted, TestChatInfo, TestChatMessage } from '../../api/types.ts';

/** Which flow a test chat runs. */
export type Wanted = 'draft' | 'current' | number;

/** A new test chat of bot `appId` running `version`. */
export async function startTestChat(appId: string, version: Wanted): Promise<TestChatInfo> {
  return unwrap(
    await api.POST('/v2/bots/{app_id}/test-chats', {
      params: { path: { app_id: appId } },
      body: { version },
    }),
  );
}

/** Exactly one of `text`, `button_id`, `list_row_id` (the body's `oneOf`). */
export type ChatInput =
  | Required<Pick<TestChatMessage, 'text'>>
  | Required<Pick<TestChatMessage, 'button_id'>>
  | Required<Pick<TestChatMessage, 'list_row_id'>>;

export async function sendMessage(
  appId: string,
  chatId: string,
  clientMessageId: string,
  input: ChatInput,
): Promise<TestChatAccepted> {
  return unwrap(
    await api.POST('/v2/bots/{app_id}/test-chats/{chat_id}/messages', {
      params: { path: { app_id: appId, chat_id: chatId } },
      body: { client_message_id: clientMessageId, ...input },
    }),
  );
}

/** The chat's stream (same origin: EventSource sends the session cookie). */
export function testChatEventsUrl(appId: string, chatId: string): string {
  return `/v2/bots/${encodeURIComponent(appId)}/test-chats/${encodeURIComponent(chatId)}/events`;
}
