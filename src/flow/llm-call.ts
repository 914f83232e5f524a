/**
 * Carries out a flow's `llm` step (docs/flows.md, "The llm step") through the OpenAI-compatible
 * chat completions endpoint (`LLM_API_URL`): the budgets first (the turn's tokens, the bot's day),
 * then the call, then the output: text (cut to the guardrail's length) or JSON checked against the
 * step's schema, with one repair attempt. Every outcome is an effect result the flow branches on:
 * the value, or `{error, code}` with a `BW_ERR_FLOW_LLM_*` code.
 *
 * Exactly once per turn: a result, once made, is kept in Redis under the step's request id (the
 * turn id and the step's number) for a day, so a turn retried after a crash reuses it rather than
 * paying and answering again. A call that was still out when its process died is made again.
 */
import {
  chatCompletion,
  ChatCompletionError,
  type ChatAnswer,
  type ChatEndpoint,
  type ChatMessage,
} from '../shared/chat-completions.ts';
import type { ErrorCode } from '../shared/errors.ts';
import { outputSchema } from '../shared/flows/llm-output.ts';
import { resultKey, type LlmUsage } from '../shared/flows/llm-usage.ts';
import { storableDeep } from '../shared/pg-text.ts';
import type { Redis } from '../shared/redis.ts';
import type { Effect, EffectResultEvent } from './engine/types.ts';
import { buildMessages, cutAnswer, isOffTopic, parseJson, repairMessages } from './llm-prompt.ts';

/** How long a made result is kept for a retried turn (seconds). */
const RESULT_TTL_S = 24 * 3600;

/**
 * What `llm` steps need: the endpoint (`LLM_API_URL`; empty: no LLM, every step fails with
 * BW_ERR_FLOW_LLM_UNAVAILABLE), the default model and the token budgets.
 */
export interface LlmSettings extends ChatEndpoint {
  /** `LLM_MODEL`, for steps that name none. */
  model: string;
  /** `FLOW_LLM_DAILY_TOKENS`: the most a bot may use a day, whatever its flow says. */
  dailyTokens: number;
  /** `FLOW_LLM_TURN_TOKENS`: a turn's tokens when the flow sets none. */
  turnTokens: number;
}

export interface LlmDeps {
  settings: LlmSettings;
  redis: Redis;
  prefix: string;
  usage: LlmUsage;
}

/** One call to the provider, as the test chat and the logs show it. */
export interface LlmCallRecord {
  model: string;
  tokens: number;
  ms: number;
  outcome: 'ok' | ErrorCode;
}

export interface LlmStepOutcome {
  event: EffectResultEvent;
  /** Tokens this step used (reported by the provider, else estimated). */
  tokens: number;
  calls: LlmCallRecord[];
}

type LlmEffect = Extract<Effect, { kind: 'llm' }>;

class StepError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The provider made no answer it could bill: unreachable, or it answered a failure status. */
    readonly unbilled = false,
  ) {
    super(message);
  }
}

/** Tokens a request may cost, before it is made: about 4 characters a token, plus the answer. */
export function estimateTokens(messages: ChatMessage[], maxTokens: number): number {
  const chars = messages.reduce((sum, m) => sum + m.content.length, 0);
  return Math.ceil(chars / 4) + maxTokens;
}

async function complete(
  deps: LlmDeps,
  step: LlmEffect,
  messages: ChatMessage[],
  signal: AbortSignal,
): Promise<ChatAnswer> {
  const { settings } = deps;
  const request = {
    model: step.model ?? settings.model,
    messages,
    max_tokens: step.max_tokens,
    temperature: step.temperature,
    ...(step.output === 'text'
      ? {}
      : {
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'output', schema: step.output, strict: false },
          },
        }),
  };
  try {
    return await chatCompletion(settings, request, { signal });
  } catch (error) {
    if (!(error instanceof ChatCompletionError)) throw error;
    if (error.kind === 'timeout') throw new StepError('BW_ERR_FLOW_LLM_TIMEOUT', error.message);
    // Unreachable, or a failure status: the provider made no answer it could bill.
    const unbilled = error.kind === 'unreachable' || error.kind === 'status';
    throw new StepError('BW_ERR_FLOW_LLM_UNAVAILABLE', error.message, unbilled);
  }
}

/**
 * Runs one `llm` step of bot `appId`.
 * @param turn.tokensLeft tokens the turn may still spend
 * @param turn.msLeft time the turn may still spend on outside calls (ms)
 */
export async function runLlmEffect(
  deps: LlmDeps,
  step: LlmEffect,
  turn: { appId: string; tokensLeft: number; msLeft: number },
): Promise<LlmStepOutcome> {
  const base = { type: 'effect_result' as const, request_id: step.request_id };
  if (!deps.settings.baseUrl) {
    const event = { ...base, ok: false, code: 'BW_ERR_FLOW_LLM_UNAVAILABLE' as const };
    return {
      event: { ...event, error: 'no LLM is configured (LLM_API_URL)' },
      tokens: 0,
      calls: [],
    };
  }
  const key = resultKey(deps.prefix, step.request_id);
  const kept = await deps.redis.get(key);
  if (kept !== null) return { event: JSON.parse(kept) as EffectResultEvent, tokens: 0, calls: [] };

  const calls: LlmCallRecord[] = [];
  let tokens = 0;
  const fail = (code: ErrorCode, error: string): EffectResultEvent => ({
    ...base,
    ok: false,
    code,
    error,
  });
  const daily = Math.min(deps.settings.dailyTokens, step.guardrails.daily_tokens ?? Infinity);
  const signal = AbortSignal.timeout(Math.max(1, Math.min(step.timeout_ms, turn.msLeft)));

  /** One call within the budgets; StepError when refused or failed. */
  const call = async (messages: ChatMessage[]) => {
    const estimate = estimateTokens(messages, step.max_tokens);
    if (tokens + estimate > turn.tokensLeft) {
      throw new StepError(
        'BW_ERR_FLOW_LLM_TURN_BUDGET',
        `the turn's llm token budget is spent (${turn.tokensLeft} left, about ${estimate} needed)`,
      );
    }
    // The day the tokens are reserved on is the day their correction goes to, also when UTC
    // midnight passes while the call is out (else one day keeps the estimate, the next a credit).
    const day = new Date();
    if (!(await deps.usage.reserve(turn.appId, estimate, daily, day))) {
      throw new StepError(
        'BW_ERR_FLOW_LLM_DAILY_BUDGET',
        `the bot's daily budget of ${daily} tokens is spent`,
      );
    }
    const started = performance.now();
    const model = step.model ?? deps.settings.model;
    try {
      const answer = await complete(deps, step, messages, signal);
      const used = answer.totalTokens ?? estimate;
      tokens += used;
      await deps.usage.settle(turn.appId, used - estimate, day);
      calls.push({
        model,
        tokens: used,
        ms: Math.round(performance.now() - started),
        outcome: 'ok',
      });
      return answer.content;
    } catch (error) {
      // A provider that answered nothing, or a failure status, bills nothing: the reservation
      // goes back. Otherwise (a timeout, an answer out of shape) the use is unknown and the
      // reservation stands: a budget errs on the side of spending less.
      const unbilled = error instanceof StepError && error.unbilled;
      const charged = unbilled ? 0 : estimate;
      if (unbilled) await deps.usage.settle(turn.appId, -estimate, day);
      tokens += charged;
      const code = error instanceof StepError ? error.code : 'BW_ERR_FLOW_LLM_UNAVAILABLE';
      calls.push({
        model,
        tokens: charged,
        ms: Math.round(performance.now() - started),
        outcome: code,
      });
      throw error;
    }
  };

  let event: EffectResultEvent;
  try {
    event = await settleLlmAnswers(step, call);
  } catch (error) {
    event = fail('BW_ERR_FLOW_LLM_UNAVAILABLE', (error as Error).message);
  }
  await deps.usage.count(event.ok ? 'ok' : (event.code ?? 'failed'), tokens);
  // Refused before any call: nothing was paid, so a retry may decide anew.
  if (calls.length > 0) await deps.redis.set(key, JSON.stringify(event), 'EX', RESULT_TTL_S);
  return { event, tokens, calls };
}

/**
 * The step's result from the answers `call` gives, with its guardrails: the topic, the answer's
 * length, a JSON output checked against its schema with one repair. A live step calls the provider;
 * a conversation test's stand-in answers (`conversation-tests/stand-ins.ts`).
 */
export async function settleLlmAnswers(
  step: LlmEffect,
  call: (messages: ChatMessage[]) => Promise<string>,
): Promise<EffectResultEvent> {
  const base = { type: 'effect_result' as const, request_id: step.request_id };
  try {
    return await answerOf(step, call, base);
  } catch (error) {
    if (!(error instanceof StepError)) throw error;
    return { ...base, ok: false, code: error.code, error: error.message };
  }
}

async function answerOf(
  step: LlmEffect,
  call: (messages: ChatMessage[]) => Promise<string>,
  base: { type: 'effect_result'; request_id: string },
): Promise<EffectResultEvent> {
  const messages = buildMessages(step);
  const first = await call(messages);
  if (step.guardrails.topic !== undefined && isOffTopic(first)) {
    throw new StepError('BW_ERR_FLOW_LLM_OFF_TOPIC', "the request is off the bot's topic");
  }
  if (step.output === 'text') {
    return {
      ...base,
      ok: true,
      value: storableDeep(cutAnswer(first, step.guardrails.max_answer_chars)),
    };
  }
  const schema = outputSchema(step.output);
  if (!schema.ok)
    throw new StepError('BW_ERR_FLOW_LLM_INVALID_OUTPUT', `the schema ${schema.message}`);
  const check = (answer: string): { value: unknown } | { problems: string[] } => {
    const parsed = parseJson(answer);
    if (!parsed.ok) return { problems: ['it is not JSON'] };
    const problems = schema.validate(parsed.value);
    return problems.length === 0 ? { value: parsed.value } : { problems };
  };
  const checked = check(first);
  if ('value' in checked) return { ...base, ok: true, value: storableDeep(checked.value) };
  const second = await call(repairMessages(messages, first, checked.problems));
  const repaired = check(second);
  if ('value' in repaired) return { ...base, ok: true, value: storableDeep(repaired.value) };
  throw new StepError(
    'BW_ERR_FLOW_LLM_INVALID_OUTPUT',
    `the answer is not valid after one repair: ${repaired.problems.join('; ')}`,
  );
}

/**
 * An `llm` step as a turn makes it: refused as unavailable without an LLM, as timed out when the
 * turn has no time left for outside calls (`FLOW_HTTP_TURN_BUDGET_MS`), else {@link runLlmEffect}.
 */
export async function runLlmStep(
  deps: LlmDeps | undefined,
  step: LlmEffect,
  turn: { appId: string; tokensLeft: number; msLeft: number },
): Promise<LlmStepOutcome> {
  const refused = (code: ErrorCode, error: string): LlmStepOutcome => ({
    event: { type: 'effect_result', request_id: step.request_id, ok: false, code, error },
    tokens: 0,
    calls: [],
  });
  if (!deps) return refused('BW_ERR_FLOW_LLM_UNAVAILABLE', 'no LLM is configured');
  if (turn.msLeft <= 0) {
    return refused('BW_ERR_FLOW_LLM_TIMEOUT', 'the turn has no time left for outside calls');
  }
  return runLlmEffect(deps, step, turn);
}
