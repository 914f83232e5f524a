/**
 * Running a turn whose waits' patterns are matched in the pattern thread (`pattern-matcher.ts`):
 * the engine is pure and synchronous, so a turn that asks a pattern not matched yet is run again,
 * from the same state and event, once the thread answered. A turn asks at most one pattern (the
 * wait its input answers), so it runs at most twice.
 */
import type { Flow } from '../shared/flows/types.ts';
import type { Logger } from '../shared/logger.ts';
import { runTurn } from './engine/run-turn.ts';
import type { ConversationState, FlowEvent, TurnOptions, TurnResult } from './engine/types.ts';
import type { PatternMatcher } from './pattern-matcher.ts';

/** `runTurn` with `options.testPattern` answered by `matcher`, as bot `bot`'s matches (its app id). */
export async function runTurnMatching(
  matcher: PatternMatcher,
  bot: string,
  log: Logger,
  flow: Flow,
  state: ConversationState,
  event: FlowEvent,
  options: TurnOptions,
): Promise<TurnResult> {
  const known = new Map<string, boolean>();
  // A run that is repeated hands out the same request ids as the first.
  const issued: string[] = [];
  let used = 0;
  const newRequestId = (): string => {
    if (used === issued.length) issued.push(options.newRequestId());
    return issued[(used += 1) - 1]!;
  };
  for (;;) {
    let asked: { pattern: string; text: string } | undefined;
    used = 0;
    const result = runTurn(flow, state, event, {
      ...options,
      newRequestId,
      testPattern: (pattern, text) => {
        const answer = known.get(`${pattern}\n${text}`);
        if (answer !== undefined) return answer;
        asked ??= { pattern, text };
        return false;
      },
    });
    if (!asked) return result;
    const outcome = await matcher.test(asked.pattern, asked.text, bot);
    if (outcome === 'timeout') log.warn({ pattern: asked.pattern }, 'wait pattern timed out');
    known.set(`${asked.pattern}\n${asked.text}`, outcome === 'accepted');
  }
}
