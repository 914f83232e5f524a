/**
 * Asks the LLM what free text means when the embeddings leave it unclear (docs/flows.md,
 * "Understanding free text"): a flow with `matching.llm` whose scores name no clear winner, but
 * whose best candidate comes near one, has the LLM pick among the options the wait offers and the
 * flow's intents, or none. Its answer rides on the event (`meaning.chosen`) and decides wherever
 * the engine matches by meaning; a failure, a refusal or a budget spent leaves the scores' rule,
 * which re-asks.
 *
 * The call is an `llm` effect the flow component makes itself (`runLlmStep`): the same endpoint,
 * the bot's daily and turn token budgets, the flow's PII masking, the user's text and the
 * candidates sent only as delimited data, one repair of an invalid answer, and the result kept
 * under the turn's id, so a redelivered turn asks once.
 */
import type { Flow } from '../shared/flows/types.ts';
import {
  hasWords,
  matchSettingsOf,
  pickBest,
  type Candidate,
  type MatchSettings,
  type MeaningScores,
} from './engine/meaning.ts';
import { isHandoffKeyword, isResetKeyword } from './engine/input.ts';
import type { ConversationState, Effect, FlowEvent, PromptPart } from './engine/types.ts';
import { runLlmStep, type LlmCallRecord, type LlmDeps } from './llm-call.ts';
import { phrasesFor } from './understanding.ts';

/** The least score of the best candidate for the LLM to be asked: below it the text means none. */
export const LLM_FLOOR = 0.3;
/** How long the LLM may take to decide (ms); the turn re-asks after it. */
export const LLM_PICK_TIMEOUT_MS = 4000;
/** Examples shown per candidate, and the longest example or title shown (characters). */
const MAX_EXAMPLES = 5;
const MAX_EXAMPLE_CHARS = 120;
/** The longest candidate list sent, under the data blocks' own cap (`MAX_VALUE_CHARS`, `src/shared/llm-data.ts`). */
const MAX_LISTED_CHARS = 6000;
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
 * The candidates of the text, best first, each with its score: the awaited choice's options and
 * the flow's global intents (what decides a wait), or every intent when no choice is awaited;
 * undefined when the flow does not ask the LLM or the scores are clear either way (a winner,
 * nothing near one, or plain small talk where no option is offered). `bench/understanding`
 * counts how often.
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
  const { meaning } = event;
  const declared = new Map((flow.intents ?? []).map((i) => [i.name, i]));
  const choice = phrases.options.length > 0;
  const candidates: Keyed[] = [
    ...phrases.options.map((o) => ({
      kind: 'option' as const,
      name: o.id,
      key: `option:${o.id}`,
      score: meaning.options?.find((m) => m.id === o.id)?.score ?? 0,
      about: o.texts[0] ?? o.id,
      examples: o.texts.slice(1),
    })),
    ...phrases.intents
      .filter((i) => !choice || declared.get(i.name)?.global)
      .map((i) => ({
        kind: 'intent' as const,
        name: i.name,
        key: `intent:${i.name}`,
        score: meaning.intents?.find((m) => m.name === i.name)?.score ?? 0,
        about: declared.get(i.name)?.description ?? i.name,
        examples: i.texts,
        ...(declared.get(i.name)?.global ? { global: true as const } : {}),
      })),
  ].sort((a, b) => b.score - a.score);
  const best = candidates[0]?.score ?? -1;
  // Plain small talk ("thanks", "hi") where only intents could match: it means none of them.
  if (!choice && (meaning.small_talk ?? -1) - best >= settings.margin) return undefined;
  if (best < LLM_FLOOR || pickBest(candidates, settings, meaning.small_talk) !== undefined) {
    return undefined;
  }
  return candidates;
}

/**
 * The candidates as the LLM is shown them, best first: at most {@link MAX_EXAMPLES} examples each,
 * and as many candidates as fit in {@link MAX_LISTED_CHARS} (a flow may declare 50 intents of 50
 * examples), so the list is never cut mid-way; only those listed can be picked.
 */
function listed(candidates: readonly Keyed[]): { shown: Keyed[]; json: string } {
  const shown: Keyed[] = [];
  const entries: object[] = [];
  let chars = 2;
  for (const c of candidates) {
    const examples = c.examples.slice(0, MAX_EXAMPLES).map((e) => e.slice(0, MAX_EXAMPLE_CHARS));
    const entry = {
      key: c.key,
      is: c.kind,
      [c.kind === 'option' ? 'title' : 'description']: c.about.slice(0, MAX_EXAMPLE_CHARS),
      ...(examples.length > 0 ? { examples } : {}),
    };
    const size = JSON.stringify(entry, null, 1).length + 2;
    if (shown.length > 0 && chars + size > MAX_LISTED_CHARS) break;
    chars += size;
    shown.push(c);
    entries.push(entry);
  }
  return { shown, json: JSON.stringify(entries, null, 1) };
}

/** The `llm` effect that asks which of the `shown` candidates `text` means. */
function pickEffect(
  flow: Flow,
  requestId: string,
  text: string,
  shown: Keyed[],
  json: string,
): Effect {
  const prompt: PromptPart[] = [
    { text: 'The candidates:\n' },
    { data: json, name: 'candidates' },
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
      properties: { pick: { type: 'string', enum: [...shown.map((c) => c.key), NONE] } },
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
  turn: {
    appId: string;
    id: string;
    matching?: MatchSettings;
    /** The reset and handoff keywords the engine takes before any meaning. */
    keywords?: readonly string[];
  },
): Promise<LlmPick> {
  const unchanged: LlmPick = { event, calls: [], tokens: 0 };
  if (!deps?.settings.baseUrl || event.type !== 'input') return unchanged;
  const settings = matchSettingsOf(flow.matching, turn.matching);
  const text = event.text?.trim() ?? '';
  if (isResetKeyword(text, turn.keywords ?? []) || isHandoffKeyword(text, turn.keywords ?? [])) {
    return unchanged; // the engine acts on it before any meaning
  }
  const candidates = unclearCandidates(flow, state, event, settings);
  if (!candidates) return unchanged;
  const { shown, json } = listed(candidates);
  const effect = pickEffect(flow, `${turn.id}:meaning`, text, shown, json);
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
  const hit = shown.find((c) => c.key === key);
  const chosen: MeaningScores['chosen'] = hit ? { kind: hit.kind, name: hit.name } : NONE;
  return { event: { ...event, meaning: { ...event.meaning, chosen } }, calls, tokens: done.tokens };
}
