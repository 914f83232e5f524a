/**
 * Asks the LLM what free text means when the embeddings leave it unclear (docs/flows.md,
 * "Understanding free text"): a flow with `matching.llm` whose scores name no clear winner, but
 * whose best candidate comes near one, has the LLM pick among the options the wait offers and the
 * flow's intents, or none. Its answer rides on the event (`meaning.chosen`) and decides wherever
 * the engine matches by meaning; a failure, a refusal or a budget spent leaves the scores' rule,
 * which re-asks.
 *
 * The call is an `llm` effect the flow component makes itself (`runLlmEffect`): the same endpoint,
 * the bot's daily and turn token budgets, the flow's PII masking, the user's text and the
 * candidates sent only as delimited data, one repair of an invalid answer, and the result kept
 * under the turn's id, so a redelivered turn asks once.
 */
import type { Flow } from '../shared/flows/types.ts';
import {
  DEFAULT_MATCHING,
  hasWords,
  pickBest,
  type Candidate,
  type MatchSettings,
  type MeaningScores,
} from './engine/meaning.ts';
import type { ConversationState, Effect, FlowEvent, PromptPart } from './engine/types.ts';
import { runLlmStep, type LlmCallRecord, type LlmDeps } from './llm-call.ts';
import { phrasesFor } from './understanding.ts';

/** The least score of the best candidate for the LLM to be asked: below it the text means none. */
export const LLM_FLOOR = 0.3;
/** How long the LLM may take to decide (ms); the turn re-asks after it. */
export const LLM_PICK_TIMEOUT_MS = 4000;
/** The answer is one short JSON object. */
const MAX_TOKENS = 40;
const NONE = 'none';

const SYSTEM = [
  'You match what a user of a chat bot wrote to what the bot can do.',
  'The candidates are the options the bot offered and the intents it knows, each with a key.',
  `Pick the key of the candidate the message clearly means. Pick "${NONE}" when it means none of them, when it could mean more than one, or when you are unsure: a wrong pick is worse than asking the user again.`,
].join(' ');

export interface LlmPick {
  /** The event, with `meaning.chosen` when the LLM was asked and answered. */
  event: FlowEvent;
  /** The calls made (none when the LLM was not asked), for the transcript's notes. */
  calls: LlmCallRecord[];
  /** Tokens they used, which the turn's budget has spent. */
  tokens: number;
}

export type Keyed = Candidate & { key: string; about: string; examples: string[] };

/**
 * The candidates of the text: the awaited choice's options and the flow's intents, each with
 * its score; undefined when the flow does not ask the LLM or the scores are clear either way
 * (a winner, nothing near one, or plain small talk). `bench/understanding` counts how often.
 */
export function unclearCandidates(
  flow: Flow,
  state: ConversationState,
  event: FlowEvent,
  settings: MatchSettings,
): Keyed[] | undefined {
  if (flow.matching?.llm !== true || event.type !== 'input' || !event.meaning) return undefined;
  if (!hasWords(event.text)) return undefined;
  const phrases = phrasesFor(flow, state, event);
  if (!phrases) return undefined;
  const scoreOf = (kind: 'option' | 'intent', name: string): number =>
    (kind === 'option'
      ? event.meaning?.options?.find((o) => o.id === name)
      : event.meaning?.intents?.find((i) => i.name === name)
    )?.score ?? 0;
  const candidates: Keyed[] = [
    ...phrases.options.map((o) => ({
      kind: 'option' as const,
      name: o.id,
      key: `option:${o.id}`,
      score: scoreOf('option', o.id),
      about: o.texts[0] ?? o.id,
      examples: o.texts.slice(1),
    })),
    ...phrases.intents.map((i) => ({
      kind: 'intent' as const,
      name: i.name,
      key: `intent:${i.name}`,
      score: scoreOf('intent', i.name),
      about: flow.intents?.find((f) => f.name === i.name)?.description ?? i.name,
      examples: i.texts,
    })),
  ];
  const best = Math.max(...candidates.map((c) => c.score));
  // Clearly small talk ("thanks", "hi"): it means none of them, no need to ask.
  const smallTalk = event.meaning.small_talk ?? -1;
  if (smallTalk - best >= settings.margin) return undefined;
  if (best < LLM_FLOOR || pickBest(candidates, settings, event.meaning.small_talk) !== undefined) {
    return undefined;
  }
  return candidates;
}

/** The `llm` effect that asks which candidate `text` means. */
function pickEffect(flow: Flow, requestId: string, text: string, candidates: Keyed[]): Effect {
  const listed = candidates.map((c) => ({
    key: c.key,
    is: c.kind,
    [c.kind === 'option' ? 'title' : 'description']: c.about,
    ...(c.examples.length > 0 ? { examples: c.examples } : {}),
  }));
  const prompt: PromptPart[] = [
    { text: 'The candidates:\n' },
    { data: JSON.stringify(listed, null, 1), name: 'candidates' },
    { text: '\nThe message the user wrote:\n' },
    { data: text, name: 'message' },
    { text: '\nWhich candidate does the message mean?' },
  ];
  const guardrails = flow.llm ?? {};
  return {
    kind: 'llm',
    request_id: requestId,
    system: SYSTEM,
    prompt,
    output: {
      type: 'object',
      properties: { pick: { type: 'string', enum: [...candidates.map((c) => c.key), NONE] } },
      required: ['pick'],
      additionalProperties: false,
    },
    max_tokens: MAX_TOKENS,
    temperature: 0,
    timeout_ms: LLM_PICK_TIMEOUT_MS,
    // Only what bounds the call: the answer is a key, so a topic or a length means nothing here.
    guardrails: {
      ...(guardrails.daily_tokens === undefined ? {} : { daily_tokens: guardrails.daily_tokens }),
      ...(guardrails.mask_pii ? { mask_pii: true } : {}),
    },
  };
}

/**
 * `event` with the LLM's pick when the flow asks for it and the scores leave the text unclear;
 * else `event` as it is, and no call.
 * @param turn.id the turn's id: the call's result is kept under it
 */
export async function pickByLlm(
  deps: LlmDeps | undefined,
  flow: Flow,
  state: ConversationState,
  event: FlowEvent,
  turn: { appId: string; id: string; matching?: MatchSettings },
): Promise<LlmPick> {
  const unchanged: LlmPick = { event, calls: [], tokens: 0 };
  if (!deps?.settings.baseUrl || event.type !== 'input') return unchanged;
  const base = turn.matching ?? DEFAULT_MATCHING;
  const settings = {
    minScore: flow.matching?.min_score ?? base.minScore,
    margin: flow.matching?.margin ?? base.margin,
  };
  const candidates = unclearCandidates(flow, state, event, settings);
  if (!candidates) return unchanged;
  const effect = pickEffect(flow, `${turn.id}:meaning`, event.text!.trim(), candidates);
  const done = await runLlmStep(deps, effect as Extract<Effect, { kind: 'llm' }>, {
    appId: turn.appId,
    tokensLeft: flow.llm?.turn_tokens ?? deps.settings.turnTokens,
    msLeft: LLM_PICK_TIMEOUT_MS,
  });
  const refused: LlmCallRecord = {
    model: deps.settings.model,
    tokens: 0,
    ms: 0,
    outcome: done.event.code ?? 'BW_ERR_INTERNAL',
  };
  const calls = done.calls.length > 0 || done.event.ok ? done.calls : [refused];
  if (!done.event.ok) return { event, calls, tokens: done.tokens };
  const key = (done.event.value as { pick: string }).pick;
  const hit = candidates.find((c) => c.key === key);
  const chosen: MeaningScores['chosen'] = hit ? { kind: hit.kind, name: hit.name } : NONE;
  return { event: { ...event, meaning: { ...event.meaning, chosen } }, calls, tokens: done.tokens };
}
