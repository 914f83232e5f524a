/**
 * Understanding free text by meaning: the rule that turns similarity scores into a decision.
 * The scores come with the input event (the `flow` component embeds the user's text off the main
 * thread and compares it with the options' and intents' phrases, `src/flow/understanding.ts`),
 * so the engine stays pure. docs/flows.md, "Understanding free text", explains the rule and how
 * its defaults were chosen (`bench/understanding`).
 */

/** Similarities of the user's text (cosine, -1..1) to each option and each intent. */
export interface MeaningScores {
  /** Per option id: the best similarity to its title or one of its example phrases. */
  options?: { id: string; score: number }[];
  /** Per intent name: the best similarity to one of its example phrases. */
  intents?: { name: string; score: number }[];
  /**
   * What the LLM said the text means, asked because the scores left it unclear
   * (`src/flow/understanding-llm.ts`): an option or an intent, or `none`. When present it decides
   * in place of the scores' rule, wherever the engine matches by meaning.
   */
  chosen?: { kind: 'option' | 'intent'; name: string } | 'none';
  /**
   * The text's similarity to everyday small talk (greetings, thanks, yes, help) that none of the
   * flow's intents claims: a global intent wins only ahead of it by the margin, so "hi there" is
   * not taken for the handoff intent that happens to be the closest of few.
   */
  small_talk?: number;
}

/** The thresholds of the rule. */
export interface MatchSettings {
  /** Least similarity the best candidate needs. */
  minScore: number;
  /** How far the best must be ahead of the second best. */
  margin: number;
}

/**
 * Defaults chosen on `bench/understanding` with the embedded model (docs/flows.md): the least
 * score with at most 2 % wrong picks over all answers, and a margin that re-asks answers close
 * to two options.
 */
export const DEFAULT_MATCHING: MatchSettings = { minScore: 0.5, margin: 0.14 };

/** The settings a flow matches with: its own `matching`, else the deployment's, else the defaults. */
export function matchSettingsOf(
  own: { min_score?: number; margin?: number } | undefined,
  base: MatchSettings = DEFAULT_MATCHING,
): MatchSettings {
  return { minScore: own?.min_score ?? base.minScore, margin: own?.margin ?? base.margin };
}

/** What a turn understood by meaning, for the transcript and the test chat. */
export interface Understood {
  kind: 'option' | 'intent';
  /** The option id or the intent name. */
  name: string;
  score: number;
  /** The state whose wait the input answered. */
  state: string;
  /** Present when the LLM decided what the scores left unclear. */
  by?: 'llm';
}

export interface Candidate {
  kind: 'option' | 'intent';
  name: string;
  score: number;
  /** Present when the LLM chose it. */
  by?: 'llm';
  /** A global intent, which acts from any wait: small talk is its rival. */
  global?: true;
}

const LETTERS = /\p{L}/gu;

/**
 * Whether `text` has enough words to be matched by meaning: two letters at least. Emoji,
 * digits and punctuation alone ("👍", "?", "2") are not guessed at; they get the re-ask.
 */
export function hasWords(text: string | undefined): boolean {
  return (text?.match(LETTERS)?.length ?? 0) >= 2;
}

/**
 * The LLM's choice among `candidates` when it made one: that candidate, or none when it chose
 * something else or nothing (`chosen` decides wherever it was asked); else {@link pickBest}.
 */
export function decide(
  candidates: readonly Candidate[],
  settings: MatchSettings,
  meaning: MeaningScores | undefined,
): Candidate | undefined {
  const chosen = meaning?.chosen;
  if (chosen === undefined) return pickBest(candidates, settings, meaning?.small_talk);
  if (chosen === 'none') return undefined;
  const hit = candidates.find((c) => c.kind === chosen.kind && c.name === chosen.name);
  return hit && { ...hit, by: 'llm' };
}

/**
 * The best candidate when it reaches `minScore` and leads the next by `margin`, and, when it is
 * a global intent, leads `smallTalk` by `margin` too; else none.
 */
export function pickBest(
  candidates: readonly Candidate[],
  settings: MatchSettings,
  smallTalk?: number,
): Candidate | undefined {
  const sorted = [...candidates].sort((a, b) => b.score - a.score);
  const [first, second] = sorted;
  if (!first || first.score < settings.minScore) return undefined;
  if (second && first.score - second.score < settings.margin) return undefined;
  if (
    first.global === true &&
    smallTalk !== undefined &&
    first.score - smallTalk < settings.margin
  ) {
    return undefined;
  }
  return first;
}

/**
 * The scores of one kind as candidates, only for the names given (the options the state offers,
 * the intents the flow declares): scores of anything else are ignored.
 */
export function candidatesOf(
  kind: 'option' | 'intent',
  scores: MeaningScores | undefined,
  names: readonly string[],
  globals: ReadonlySet<string> = new Set(),
): Candidate[] {
  const wanted = new Set(names);
  const scored =
    kind === 'option'
      ? (scores?.options ?? []).map((o) => ({ name: o.id, score: o.score }))
      : (scores?.intents ?? []);
  return scored
    .filter((c) => wanted.has(c.name))
    .map((c) => ({
      kind,
      name: c.name,
      score: c.score,
      ...(kind === 'intent' && globals.has(c.name) ? { global: true as const } : {}),
    }));
}
