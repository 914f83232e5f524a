/**
 * Running a bot's conversation tests from the api: the saved tests (or some of them) against a
 * flow, by a flow process through the test queue (`conversation-test-queue.ts`), with the bot's
 * handoff keywords as its live turns have them.
 */
import type { BotRecord } from '../../shared/bots/types.ts';
import { BotwireError } from '../../shared/errors.ts';
import type {
  ConversationTest,
  TestRunResult,
} from '../../shared/flows/conversation-test-types.ts';
import type { Edge } from '../edge.ts';
import { TestStore } from './store.ts';

/**
 * The results of bot `bot`'s saved tests (or those in `names`) on `flow`; undefined when there is
 * no test to run.
 * @throws BotwireError `BW_ERR_NOT_FOUND` for a name the bot has no test of,
 *   `BW_ERR_TESTS_UNAVAILABLE`
 */
export async function runBotTests(
  edge: Edge,
  bot: BotRecord,
  flow: Record<string, unknown>,
  names?: readonly string[],
): Promise<TestRunResult | undefined> {
  const appId = bot.appId;
  const saved = await new TestStore(edge.db).list(appId, names);
  if (names) {
    const have = new Set(saved.map((s) => s.test.name));
    const missing = names.filter((n) => !have.has(n));
    if (missing.length > 0)
      throw new BotwireError(
        'BW_ERR_NOT_FOUND',
        `this bot has no test named ${missing.join(', ')}`,
      );
  }
  const tests: ConversationTest[] = saved.map((s) => s.test);
  if (tests.length === 0) return undefined;
  return edge.tests.queue.run(
    { app_id: appId, flow, handoff_keywords: bot.handoff?.keywords ?? [], tests },
    edge.tests.timeoutMs,
  );
}

/** An empty run: what a bot with no tests passes. */
export const NO_TESTS: TestRunResult = { passed: 0, failed: 0, duration_ms: 0, tests: [] };
