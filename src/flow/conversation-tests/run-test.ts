/**
 * Runs conversation tests on the flow engine directly: no platform, no topic, no stored state. Each
 * step is one turn, as the flow component runs it (free text scored by meaning first, a wait's
 * pattern matched in the pattern thread, effects answered until the turn waits), with the test's
 * stand-ins answering the effects. Then the step's expectations are checked.
 */
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
import { runTurn } from '../engine/run-turn.ts';
import {
  newConversation,
  type ConversationState,
  type FlowEvent,
  type OutMessage,
  type TurnOptions,
} from '../engine/types.ts';
import type { MatchSettings } from '../engine/meaning.ts';
import type { PatternMatcher } from '../pattern-matcher.ts';
import { runTurnMatching } from '../turn-patterns.ts';
import type { Understanding } from '../understanding.ts';
import { describeExpectation, failureOf } from './expectations.ts';
import { replyOf } from './replies.ts';
import { answerEffect } from './stand-ins.ts';

/** Effects one step may ask for before the test fails (a flow that calls in a loop). */
export const MAX_EFFECTS_PER_STEP = 25;

export interface TestDeps {
  understanding?: Understanding;
  patterns?: PatternMatcher;
  matching?: MatchSettings;
  log: Logger;
}

class RunFailure extends Error {}

/** One step's turn: the input, then each effect's stand-in result, until the turn waits. */
async function runStep(
  deps: TestDeps,
  request: TestRunRequest,
  test: ConversationTest,
  state: ConversationState,
  input: FlowEvent,
  step: number,
): Promise<{ state: ConversationState; outputs: OutMessage[]; handoff: boolean }> {
  const flow = request.flow as unknown as Flow;
  let event = input;
  if (event.type === 'input' && deps.understanding) {
    const meaning = await deps.understanding.scores(flow, state, event);
    if (meaning) event = { ...event, meaning };
  }
  let counter = 0;
  const options: TurnOptions = {
    ...(deps.matching ? { matching: deps.matching } : {}),
    newRequestId: () => `test:${step}:${(counter += 1)}`,
    handoffKeywords: request.handoff_keywords,
    newHandoffId: () => `test-handoff-${step}`,
  };
  let outputs: OutMessage[] = [];
  let handoff = false;
  let rendered = 0;
  for (let effects = 0; ; effects += 1) {
    const run = { ...options, rendered };
    const result = deps.patterns
      ? await runTurnMatching(deps.patterns, request.app_id, deps.log, flow, state, event, run)
      : runTurn(flow, state, event, run);
    state = result.state;
    rendered = result.rendered;
    if (result.errors.some((e) => e.code === 'BW_ERR_FLOW_BUDGET')) outputs = [];
    outputs.push(...result.outputs);
    handoff ||= result.handoff !== undefined;
    const effect = result.effects[0];
    if (!effect) return { state, outputs, handoff };
    if (effects >= MAX_EFFECTS_PER_STEP) {
      throw new RunFailure(
        `the flow asked for more than ${MAX_EFFECTS_PER_STEP} effects in one step`,
      );
    }
    const answer = answerEffect(effect, test.stand_ins);
    if (!answer.ok) throw new RunFailure(`no stand-in answers ${answer.missing}`);
    event = answer.event;
  }
}

export async function runTest(
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
        handoff: done.handoff,
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
      if (!(error instanceof RunFailure)) throw error;
      failures.push({ step: index, where: `steps[${index}]`, message: error.message });
      break;
    }
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
