/**
 * Realistic text for the knowledge bench, deterministic for a seed: English prose from a word
 * bigram model trained on the documentation comments in TypeScript's `lib.dom.d.ts` (a pinned
 * devDependency, so every checkout gets the same text), with some non-ASCII words mixed in
 * (Latin-1 and WinAnsi only, which pdfkit's built-in Helvetica can draw). The model gives real
 * vocabulary with a natural frequency spread, and phrases that recur the way they do in manuals.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Mulberry32: a small seeded PRNG, so a corpus is the same on every run. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;

export const pick = <T>(random: Random, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)]!;

/** Words a chat bot's documents carry in other languages; each fits WinAnsi. */
export const NON_ASCII = [
  'Grüße',
  'café',
  'señor',
  'Straße',
  'naïve',
  'façade',
  'Köln',
  'Zürich',
  'München',
  'Málaga',
  'São Paulo',
  'crème brûlée',
  'déjà vu',
  'jalapeño',
  'smörgåsbord',
  'Øresund',
  'résumé',
  'Genève',
  'Düsseldorf',
  'piñata',
  'über',
  'fiancée',
  'Ångström',
  'Çanakkale',
  '€5',
  '½ price',
  '“quoted”',
];

const END = '.';

export interface TextModel {
  /** First words of sentences, with repetition (so frequent starts are drawn more often). */
  starts: string[];
  /** For each word, the words that followed it, with repetition; `.` ends a sentence. */
  next: Map<string, string[]>;
  /** Distinct lower-case words of the training text (query vocabulary). */
  vocabulary: string[];
  /** Training sentences as word lists (phrase queries are cut from them). */
  sentences: string[][];
}

/** Trains the bigram model on the prose of TypeScript's DOM typings. */
export function loadModel(): TextModel {
  const require = createRequire(import.meta.url);
  const source = readFileSync(require.resolve('typescript/lib/lib.dom.d.ts'), 'utf8');
  const prose = source
    .split('\n')
    .filter((line) => /^\s*\*\s+[A-Z*`]/.test(line) && !/^\s*\*\s+@/.test(line))
    .map((line) =>
      line
        .replace(/^\s*\*\s+/, '')
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '') // markdown links (MDN references)
        .replace(/\{@link\s+([^}|\s]+)[^}]*\}/g, '$1')
        .replace(/[*`]/g, ''),
    )
    .join(' ');
  const starts: string[] = [];
  const next = new Map<string, string[]>();
  const sentences: string[][] = [];
  const vocabulary = new Set<string>();
  for (const sentence of prose.split(/(?<=[.!?])\s+/)) {
    const words = sentence.match(/[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]|,/g);
    if (!words || words.length < 4 || words[0] === ',') continue;
    sentences.push(words);
    starts.push(words[0]);
    for (let i = 0; i < words.length; i += 1) {
      const word = words[i]!;
      if (word !== ',') vocabulary.add(word.toLowerCase());
      const following = next.get(word) ?? [];
      following.push(words[i + 1] ?? END);
      next.set(word, following);
    }
  }
  return { starts, next, vocabulary: [...vocabulary].sort(), sentences };
}

/** One sentence: 6 to 40 words, about one word in 30 swapped for a non-ASCII one. */
export function sentence(model: TextModel, random: Random): string {
  let word = pick(random, model.starts);
  const out: string[] = [];
  while (word !== END && out.length < 40) {
    out.push(word !== ',' && random() < 0.033 ? pick(random, NON_ASCII) : word);
    const following = model.next.get(word);
    word = following ? pick(random, following) : END;
    if (word === END && out.length < 6) word = pick(random, model.starts);
  }
  return `${out.join(' ').replaceAll(' ,', ',').replace(/,$/, '')}.`;
}

/** A paragraph of `min` to `max` characters (whole sentences). */
export function paragraph(model: TextModel, random: Random, min: number, max: number): string {
  let text = '';
  const target = min + Math.floor(random() * (max - min));
  while (text.length < target) {
    const next = sentence(model, random);
    if (text !== '' && text.length + next.length + 1 > max) break;
    text = text === '' ? next : `${text} ${next}`;
  }
  return text;
}

/** A short fragment (a spreadsheet note, a product name): `min` to `max` words, no full stop. */
export function fragment(model: TextModel, random: Random, min: number, max: number): string {
  const words = sentence(model, random).slice(0, -1).replaceAll(',', '').split(' ');
  const count = min + Math.floor(random() * (max - min + 1));
  return words.slice(0, count).join(' ');
}
