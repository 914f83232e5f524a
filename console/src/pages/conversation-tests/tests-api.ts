/** A bot's conversation tests through the admin API (docs/flows.md, "Conversation tests"). */
import { api, unwrap } from '../../api/client.ts';
import type { TestRun } from '../../api/types.ts';

const bot = (appId: string) => ({ path: { app_id: appId } });

export const testKeys = { list: (appId: string) => ['conversation-tests', appId] as const };

export async function listTests(appId: string) {
  return unwrap(await api.GET('/v2/bots/{app_id}/tests', { params: bot(appId) })).items;
}

/** Runs the saved tests against the draft (the current version when there is none). */
export async function runTests(appId: string): Promise<TestRun> {
  // JSON: no `format=junit` asked.
  return unwrap(
    await api.POST('/v2/bots/{app_id}/tests/run', { params: bot(appId), body: {} }),
  ) as TestRun;
}

export async function deleteTest(appId: string, name: string) {
  unwrap(
    await api.DELETE('/v2/bots/{app_id}/tests/{name}', {
      params: { path: { app_id: appId, name } },
    }),
  );
}

export async function saveChatAsTest(appId: string, chatId: string, name: string) {
  return unwrap(
    await api.POST('/v2/bots/{app_id}/tests/from-chat', {
      params: bot(appId),
      body: { chat_id: chatId, name },
    }),
  );
}
