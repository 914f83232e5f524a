/**
 * Runs conversation tests on the flow engine directly: no platform, no topic, no stored state. Each
 * step is one turn, settled as a live turn is (`settle-turn.ts`: free text scored by meaning
 * first, a wait's pattern matched in the pattern thread, the turn's budgets), with the test's
 * stand-ins answering the effects. Then the step's expectations are checked.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type {
  ConversationTest,
  StepOutcome,
  TestFailure,
  TestResult,
  TestRunRequest,
  TestRunResult,
} from '../../shared/flows/conversation-test-types.ts';
import type { Flow } from '../../shared/flows/types.ts';
import type { Logger } from '../../shared/logger.ts';
import { newConversation, type ConversationState, type FlowEvent } from '../engine/types.ts';
import type { MatchSettings } from '../engine/meaning.ts';
import type { PatternMatcher } from '../pattern-matcher.ts';
import { settleTurn, type SettleOptions } from '../settle-turn.ts';
import { withMeaning, type Understanding } from '../understanding.ts';
import { describeExpectation, failureOf } from './expectations.ts';
import { replyOf } from './replies.ts';
import { MissingStandIn, standInRunners } from './stand-ins.ts';

export interface TestDeps {
  understanding?: Understanding;
  patterns?: PatternMatcher;
  matching?: MatchSettings;
  /** The live turns' budgets and LLM settings, so a test settles as they do. */
  turn: Pick<SettleOptions, 'budget' | 'llm'>;
  /** Largest HTTP request body (FLOW_HTTP_MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  log: Logger;
}

/** One step's turn, from the input until the turn waits or ends. */
async function runStep(
  deps: TestDeps,
  request: TestRunRequest,
  test: ConversationTest,
  state: ConversationState,
  input: FlowEvent,
  step: number,
) {
  const flow = request.flow as unknown as Flow;
  const event = await withMeaning(deps.understanding, flow, state, input);
  let counter = 0;
  return settleTurn(
    {
      appId: request.app_id,
      ...deps.turn,
      ...(deps.patterns ? { patterns: deps.patterns } : {}),
      log: deps.log,
    },
    standInRunners(test.stand_ins, deps.maxBodyBytes),
    flow,
    state,
    event,
    {
      ...(deps.matching ? { matching: deps.matching } : {}),
      newRequestId: () => `test:${step}:${(counter += 1)}`,
      handoffKeywords: request.handoff_keywords,
      newHandoffId: () => `test-handoff-${step}`,
    },
  );
}

async function runTest(
  deps: TestDeps,
  request: TestRunRequest,
  test: ConversationTest,
): Promise<TestResult> {
  const started = performance.now();
  let state: ConversationState = { ...newConversation(), vars: { ...test.variables } };
  const steps: StepOutcome[] = [];
  const failures: TestFailure[] = [];
  for (const [index, step] of test.steps.entries()) {
    const input = 'say' in step ? { say: step.say } : { press: step.press };
    const event: FlowEvent =
      'say' in step
        ? { type: 'input', message_type: 'text', text: step.say }
        : { type: 'input', message_type: 'interactive_reply', choice_id: step.press };
    try {
      const done = await runStep(deps, request, test, state, event, index);
      state = done.state;
      const outcome: StepOutcome = {
        input,
        replies: done.outputs.map(replyOf),
        state: state.state,
        variables: state.vars,
        handoff: done.opened !== undefined,
        ended: state.ended === true,
      };
      steps.push(outcome);
      for (const [n, expectation] of (step.expect ?? []).entries()) {
        const message = failureOf(expectation, outcome);
        if (message === undefined) continue;
        failures.push({
          step: index,
          expectation: n,
          where: `steps[${index}].expect[${n}] ${describeExpectation(expectation)}`,
          message,
        });
      }
    } catch (error) {
      if (!(error instanceof MissingStandIn)) throw error;
      failures.push({
        step: index,
        where: `steps[${index}]`,
        message: `no stand-in answers ${error.message}`,
      });
      break;
    }
    // Live turns share this process: a long run lets them in between its steps.
    await yieldToLoop();
  }
  return {
    name: test.name,
    passed: failures.length === 0,
    duration_ms: Math.round(performance.now() - started),
    failures,
    steps,
  };
}

export async function runTests(deps: TestDeps, request: TestRunRequest): Promise<TestRunResult> {
  const started = performance.now();
  const tests: TestResult[] = [];
  for (const test of request.tests) tests.push(await runTest(deps, request, test));
  const passed = tests.filter((t) => t.passed).length;
  return {
    passed,
    failed: tests.length - passed,
    duration_ms: Math.round(performance.now() - started),
    tests,
  };
}
