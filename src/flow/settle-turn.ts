/**
 * One turn, settled: the engine runs on the event, then again on each effect's result, until the
 * turn waits, ends or asks for knowledge (answered later, as a turn of its own, unless the caller
 * answers it at once). The turn's budgets hold here: HTTP steps and their time
 * (`FLOW_HTTP_MAX_STEPS`, `FLOW_HTTP_TURN_BUDGET_MS`), the LLM tokens of a turn, the templates'
 * output, and a flow that calls out again after a refusal ends with the apology. Live turns
 * (`handle-turn.ts`) carry the effects out; conversation tests answer them with their stand-ins
 * (`conversation-tests/run-test.ts`): both settle the same way.
 */
import type { Flow } from '../shared/flows/types.ts';
import type { Logger } from '../shared/logger.ts';
import { DEFAULT_ERROR_TEXT, runTurn } from './engine/run-turn.ts';
import type {
  ConversationState,
  Effect,
  EffectResultEvent,
  FlowEvent,
  HandoffStart,
  OutMessage,
  TraceStep,
  TurnOptions,
  TurnResult,
} from './engine/types.ts';
import type { LlmCallRecord, LlmStepOutcome } from './llm-call.ts';
import type { PatternMatcher } from './pattern-matcher.ts';
import { runTurnMatching } from './turn-patterns.ts';
import type { TurnTrace } from './turn-trace.ts';

type HttpEffect = Extract<Effect, { kind: 'http' }>;
type LlmEffect = Extract<Effect, { kind: 'llm' }>;
type RetrieveEffect = Extract<Effect, { kind: 'retrieve' }>;

/** How a turn's effects are carried out. */
export interface EffectRunners {
  /** An HTTP step, within `timeoutMs`. */
  http(effect: HttpEffect, timeoutMs: number): Promise<EffectResultEvent>;
  /** An LLM step, within the tokens and time the turn has left. */
  llm(effect: LlmEffect, left: { tokensLeft: number; msLeft: number }): Promise<LlmStepOutcome>;
  /** A knowledge question answered at once; absent: the turn stops and waits for its answer. */
  retrieve?(effect: RetrieveEffect): Promise<EffectResultEvent>;
}

export interface SettleOptions {
  appId: string;
  /** HTTP steps a turn may make, and the time its outside calls may take (ms). */
  budget: { httpSteps: number; httpMs: number };
  /**
   * Tokens the turn's LLM steps may use when the flow sets none, the default model, and the
   * tokens the turn spent before its steps (asking what its text means). @defaultValue spent 0
   */
  llm: { turnTokens: number; model: string; spent?: number };
  patterns?: PatternMatcher;
  log: Logger;
  /** The test chat's trace, told of every run and effect. */
  trace?: TurnTrace;
}

export interface SettledTurn {
  state: ConversationState;
  outputs: OutMessage[];
  /** The knowledge question the turn waits for (when no `retrieve` runner answered it). */
  pending?: RetrieveEffect;
  /** The handoff the turn opened. */
  opened?: HandoffStart;
  understood: NonNullable<TurnResult['understood']>;
  llmCalls: LlmCallRecord[];
  /** What every run of the turn did (the analytics counts read it). */
  steps: TraceStep[];
}

function failed(requestId: string, code: 'BW_ERR_FLOW_BUDGET', error: string): EffectResultEvent {
  return { type: 'effect_result', request_id: requestId, ok: false, code, error };
}

/** The conversation ended with the apology alone, its variables cleared, its language kept. */
export function apology(state: ConversationState): {
  state: ConversationState;
  outputs: OutMessage[];
} {
  return {
    state: {
      state: state.state,
      vars: {},
      ended: true,
      ...(state.language === undefined ? {} : { language: state.language }),
    },
    outputs: [{ message_type: 'text', text: DEFAULT_ERROR_TEXT }],
  };
}

export async function settleTurn(
  settings: SettleOptions,
  runners: EffectRunners,
  flow: Flow,
  start: ConversationState,
  first: FlowEvent,
  options: TurnOptions,
): Promise<SettledTurn> {
  const { budget, trace, log } = settings;
  let state = start;
  let event = first;
  let outputs: OutMessage[] = [];
  let pending: RetrieveEffect | undefined;
  let opened: HandoffStart | undefined;
  let httpSteps = 0;
  let llmTokens = settings.llm.spent ?? 0;
  let overBudget = 0;
  let deadline: number | undefined;
  const llmCalls: LlmCallRecord[] = [];
  const understood: SettledTurn['understood'] = [];
  const steps: TraceStep[] = [];
  // What the turn's templates made so far: MAX_RENDERED_CHARS bounds the turn, not each run.
  let rendered = 0;
  /** The second refusal of a turn ends it with the apology, as the loop guard ends a loop. */
  const refusedAgain = (): boolean => {
    if ((overBudget += 1) <= 1) return false;
    ({ state, outputs } = apology(state));
    return true;
  };
  for (;;) {
    const run = { ...options, rendered };
    const result: TurnResult = settings.patterns
      ? await runTurnMatching(settings.patterns, settings.appId, log, flow, state, event, run)
      : runTurn(flow, state, event, run);
    state = result.state;
    rendered = result.rendered;
    trace?.run(result);
    steps.push(...result.trace);
    // A run stopped by the render budget sends the apology alone, also none of the earlier runs'.
    if (result.errors.some((e) => e.code === 'BW_ERR_FLOW_BUDGET')) outputs = [];
    outputs.push(...result.outputs);
    understood.push(...(result.understood ?? []));
    opened = result.handoff ?? opened;
    for (const error of result.errors)
      log.warn({ code: error.code, state: error.state }, error.message);
    const effect = result.effects[0];
    if (!effect) break;
    if (effect.kind === 'retrieve') {
      trace?.knowledge(effect);
      if (!runners.retrieve) {
        pending = effect;
        break;
      }
      event = await runners.retrieve(effect);
      continue;
    }
    deadline ??= Date.now() + budget.httpMs;
    if (effect.kind === 'llm') {
      const done = await runners.llm(effect, {
        tokensLeft: (flow.llm?.turn_tokens ?? settings.llm.turnTokens) - llmTokens,
        msLeft: deadline - Date.now(),
      });
      llmTokens += done.tokens;
      // A step refused before any call is noted too, so the test chat shows why.
      const refused = {
        model: effect.model ?? settings.llm.model,
        tokens: 0,
        ms: 0,
        outcome: done.event.code ?? 'BW_ERR_INTERNAL',
      };
      const calls = done.calls.length > 0 || done.event.ok ? done.calls : [refused];
      llmCalls.push(...calls);
      trace?.llm(calls);
      event = done.event;
      if (done.calls.length > 0) log.info({ state: state.state, llm: done.calls }, 'llm step');
      if (!event.ok) log.warn({ code: event.code, state: state.state }, event.error ?? '');
      // A step refused without a call goes to the flow once; asking again in the same turn (a
      // loop) is stopped like the loop guard, as for HTTP steps.
      if (!event.ok && done.calls.length === 0 && refusedAgain()) break;
      continue;
    }
    const left = deadline - Date.now();
    const over =
      httpSteps >= budget.httpSteps
        ? `more than ${budget.httpSteps} HTTP steps in one turn`
        : left <= 0
          ? `the turn's HTTP steps took more than ${budget.httpMs} ms`
          : undefined;
    if (over !== undefined) {
      log.warn({ code: 'BW_ERR_FLOW_BUDGET', state: state.state }, over);
      // The first budget failure goes to the flow, which may take its error path; a flow that
      // calls out again in the same turn is stopped, as the loop guard stops a loop.
      if (refusedAgain()) break;
      const refused = failed(effect.request_id, 'BW_ERR_FLOW_BUDGET', over);
      trace?.http(effect, refused, 0);
      event = refused;
      continue;
    }
    httpSteps += 1;
    const started = Date.now();
    const answered = await runners.http(effect, Math.min(effect.timeout_ms, left));
    trace?.http(effect, answered, Date.now() - started);
    event = answered;
    if (event.code === 'BW_ERR_FLOW_HTTP_REFUSED' || event.code === 'BW_ERR_FLOW_BUDGET') {
      log.warn({ code: event.code, state: state.state }, event.error ?? '');
    }
  }
  return {
    state,
    outputs,
    ...(pending ? { pending } : {}),
    ...(opened ? { opened } : {}),
    understood,
    llmCalls,
    steps,
  };
}
