/**
 * Scores a user's free text against what the flow could mean by it: the options of the choice it
 * waits for (titles and example phrases) and the flow's intents (example phrases). The flow
 * component calls it before the engine, which only applies the rule (`engine/meaning.ts`), so
 * `runTurn` stays pure.
 *
 * A candidate's score is the cosine similarity of the text to the mean of its phrases' vectors,
 * plus `LEXICAL_WEIGHT` times the share of the text's content words found in its phrases
 * (`words.ts`), after misspelt words are corrected towards the phrases (with the embedded model,
 * whose vocabulary tells a misspelling). Chosen on
 * `bench/understanding` over the best single phrase, which let one loose example decide.
 *
 * Vectors of the flow's phrases are made once and kept in this process (by text, so a new flow
 * version re-embeds only the phrases it changed); a turn embeds the user's text alone. The model
 * runs in its worker thread, never on this one. When it fails or is slow the turn goes on without
 * scores: exact matching, as without a model.
 */
import { withDeadline } from '../shared/deadline.ts';
import { LOCAL_MODEL } from '../shared/embeddings/local-provider.ts';
import type { EmbeddingProvider } from '../shared/embeddings/provider.ts';
import { dot, normalize } from '../shared/embeddings/vectors.ts';
import { render } from '../shared/flows/template.ts';
import type { Flow } from '../shared/flows/types.ts';
import { choicesOf, matchChoice, optionsSendOf } from './engine/input.ts';
import { hasWords, type MeaningScores } from './engine/meaning.ts';
import type { ConversationState, FlowEvent } from './engine/types.ts';
import { contentWords, correctSpelling, phraseWords } from './words.ts';

/** Phrase vectors kept per process (about 2 KiB each with the embedded model). */
export const PHRASE_CACHE_SIZE = 20_000;
/** How long a turn waits for its scores before it goes on with exact matching (ms). */
export const SCORE_TIMEOUT_MS = 3000;
/** What the words of a text found in a candidate's phrases add to its score, at most. */
export const LEXICAL_WEIGHT = 0.4;

/**
 * Everyday messages that mean no global intent: a global intent (which acts from any wait) must
 * be closer to the text than the nearest of these by the margin (`MeaningScores.small_talk`), as
 * a fallback class would. A phrase that one of the flow's own intents claims (an example at least
 * this similar) is left out, so a flow may still have a global greeting intent.
 */
export const SMALL_TALK = [
  'hi',
  'hello',
  'hey there',
  'good morning',
  'good evening',
  'how are you',
  'thanks',
  'thank you very much',
  'ok',
  'yes',
  'no',
  'sure',
  'bye',
  'help',
  'I need help',
  'can you help me',
  'what can you do',
  'who are you',
];
/** How similar an intent's example must be to a small-talk phrase to claim it. */
const CLAIMED = 0.8;

export interface Understanding {
  /**
   * Scores of an input event's text, or undefined when there is nothing to compare it with (no
   * choice awaited, no intents, a press, an exact option, no words) or the model failed.
   * @throws never; a failure is given to `onError`
   */
  scores(
    flow: Flow,
    state: ConversationState,
    event: FlowEvent,
  ): Promise<MeaningScores | undefined>;
  close(): Promise<void>;
}

export interface Phrases {
  options: { id: string; texts: string[] }[];
  intents: { name: string; texts: string[] }[];
}

/** `event` with its text's scores, when there is an understanding and anything to score. */
export async function withMeaning(
  understanding: Understanding | undefined,
  flow: Flow,
  state: ConversationState,
  event: FlowEvent,
): Promise<FlowEvent> {
  if (event.type !== 'input' || !understanding) return event;
  const meaning = await understanding.scores(flow, state, event);
  return meaning ? { ...event, meaning } : event;
}

/**
 * What the text could mean in this state: the awaited choice's options (their titles rendered,
 * then their examples), the flow's intents.
 */
export function phrasesFor(
  flow: Flow,
  state: ConversationState,
  event: FlowEvent,
): Phrases | undefined {
  if (event.type !== 'input' || event.choice_id !== undefined || !hasWords(event.text)) {
    return undefined;
  }
  const awaiting = state.awaiting;
  if (awaiting?.kind === 'effect') return undefined; // the engine drops such input
  const options: Phrases['options'] = [];
  const def =
    awaiting && Object.hasOwn(flow.states, awaiting.state)
      ? flow.states[awaiting.state]
      : undefined;
  if (def && awaiting?.action_index === undefined && def.wait?.expect === 'choice') {
    const vars = { ...state.vars, ...(state.language ? { language: state.language } : {}) };
    const exact = matchChoice(event, choicesOf(def, vars)) !== undefined;
    const send = exact ? undefined : optionsSendOf(def);
    const offered = send?.buttons ?? send?.list?.sections.flatMap((s) => s.rows) ?? [];
    for (const option of offered) {
      options.push({
        id: option.id,
        texts: [render(option.title, vars), ...(option.examples ?? [])],
      });
    }
    if (exact) return undefined; // the typed title wins at once, whatever an intent says
  }
  const intents = (flow.intents ?? []).map((i) => ({ name: i.name, texts: i.examples }));
  return options.length > 0 || intents.length > 0 ? { options, intents } : undefined;
}

interface User {
  vector: Float32Array;
  words: Set<string>;
}

/** The text's similarity to the nearest small-talk phrase no intent claims (-1: none left). */
function smallTalk(user: User, intents: string[], vectors: Map<string, Float32Array>): number {
  const examples = intents.map((t) => vectors.get(t)).filter((v) => v !== undefined);
  let best = -1;
  for (const phrase of SMALL_TALK) {
    const vector = vectors.get(phrase);
    if (!vector || examples.some((e) => dot(e, vector) >= CLAIMED)) continue;
    best = Math.max(best, dot(user.vector, vector));
  }
  return best;
}

/** The score of one candidate: meaning (its phrases' mean vector) plus words in common. */
function score(user: User, texts: string[], vectors: Map<string, Float32Array>): number {
  const sum = new Float32Array(user.vector.length);
  for (const text of texts) {
    const vector = vectors.get(text);
    if (vector) for (let i = 0; i < sum.length; i += 1) sum[i] = sum[i]! + vector[i]!;
  }
  const meaning = dot(user.vector, normalize(sum));
  if (user.words.size === 0) return meaning;
  const theirs = new Set(texts.flatMap((t) => [...contentWords(t)]));
  const shared = [...user.words].filter((w) => theirs.has(w)).length;
  return meaning + (LEXICAL_WEIGHT * shared) / user.words.size;
}

/**
 * @param provider the embedding model; none turns matching by meaning off
 * @param onError told of a failed or slow scoring (the turn goes on without scores)
 */
export function createUnderstanding(
  provider: EmbeddingProvider | undefined,
  onError: (error: unknown) => void = () => undefined,
  timeoutMs = SCORE_TIMEOUT_MS,
): Understanding {
  const cache = new Map<string, Float32Array>();
  // A misspelling is a word the embedded model's vocabulary lacks (`words.ts`); another model (an
  // API's, often of many languages) reads the text as written.
  const corrects = provider?.model === LOCAL_MODEL;

  async function vectorsOf(
    texts: string[],
    said: string,
  ): Promise<[User, Map<string, Float32Array>]> {
    const corrected = corrects ? correctSpelling(said, phraseWords(texts)) : said;
    const missing = [...new Set(texts)].filter((t) => !cache.has(t));
    const made = await provider!.embed([corrected, ...missing]);
    missing.forEach((text, i) => {
      if (cache.size >= PHRASE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(text, made[i + 1]!);
    });
    const vectors = new Map<string, Float32Array>();
    for (const text of texts) {
      const vector = cache.get(text);
      if (vector) vectors.set(text, vector);
    }
    return [{ vector: made[0]!, words: contentWords(corrected) }, vectors];
  }

  return {
    async scores(flow, state, event) {
      if (!provider || event.type !== 'input') return undefined;
      const phrases = phrasesFor(flow, state, event);
      if (!phrases) return undefined;
      const intentTexts = phrases.intents.flatMap((p) => p.texts);
      // Small talk is the rival of global intents only (`pickBest`): without one, nothing to do.
      const rivalled = (flow.intents ?? []).some((i) => i.global);
      const texts = [
        ...phrases.options.flatMap((p) => p.texts),
        ...intentTexts,
        ...(rivalled ? SMALL_TALK : []),
      ];
      try {
        const [user, vectors] = await withDeadline(
          vectorsOf(texts, event.text!.trim()),
          timeoutMs,
          'scoring free text by meaning',
        );
        return {
          options: phrases.options.map((o) => ({ id: o.id, score: score(user, o.texts, vectors) })),
          intents: phrases.intents.map((i) => ({
            name: i.name,
            score: score(user, i.texts, vectors),
          })),
          ...(rivalled ? { small_talk: smallTalk(user, intentTexts, vectors) } : {}),
        };
      } catch (error) {
        onError(error);
        return undefined;
      }
    },
    close: async () => provider?.close(),
  };
}
