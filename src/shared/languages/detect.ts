/**
 * Offline language detection with eld (n-gram model shipped in the package, no network). Short
 * or mixed texts come back unreliable; callers then keep the language they knew.
 *
 * The model is loaded at the first detection, not with the module, which `channel` never needs
 * with `LANGUAGE_HOP=always` (the default: `language` detects) and the indexer only once a job
 * chooses a collection's language. It is eld's `medium` table, read as JSON that `npm run build`
 * writes (`scripts/lib/language-model.mjs`): eld ships it as one object literal, whose compilation
 * leaves a process about 90 MB of parser memory that glibc does not give back (a process holding
 * the model: about 230 MB resident imported, about 100 MB from JSON, measured alone after a
 * collection). The JSON lists each distinct score set once, so n-grams with equal scores share
 * one object (the table's heap: 16 MiB instead of 34). From sources without a build, the
 * package's own entry is imported.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ConversationRef } from '../messages.ts';
import { projectPath } from '../runtime-layout.ts';

type Eld = (typeof import('eld/medium'))['eld'];

/** eld's own constructor (`src/languageDetector.js`): a detector with an empty table, and its loader. */
type CreateEld = () => { instance: Eld; loadData: (table: unknown) => void };

/** The table `npm run build` writes. */
export const MODEL_TABLE = projectPath('dist', 'language-model', 'eld-medium.json');

let detector: Promise<Eld> | undefined;

/** eld's folder, found as Node finds a package (its exports name only its entry points). */
export function eldFolder(): string {
  const require = createRequire(import.meta.url);
  for (const dir of require.resolve.paths('eld') ?? []) {
    if (existsSync(join(dir, 'eld', 'package.json'))) return join(dir, 'eld');
  }
  throw new Error('the eld package is not installed');
}

/** eld's table: n-grams, each with its score by language index, and what eld reads beside them. */
export interface EldTable {
  ngrams: Record<string, Record<string, number>>;
  [field: string]: unknown;
}

/** The file `language-model.mjs` writes: each distinct score set once, n-grams by its index. */
interface SharedScoresFile {
  format: 'eld-shared-scores';
  table: Record<string, unknown>;
  scores: Record<string, number>[];
  ngrams: Record<string, number>;
}

/**
 * eld's table from the built file, each n-gram given its score set in place of the set's index
 * (eld only reads the sets, so sharing them is safe).
 */
export async function readTable(path: string): Promise<EldTable> {
  const file = JSON.parse(await readFile(path, 'utf8')) as SharedScoresFile;
  if (file.format !== 'eld-shared-scores') {
    throw new Error(`${path} is not a table npm run build wrote; run npm run build`);
  }
  const ngrams = file.ngrams as unknown as Record<string, Record<string, number>>;
  for (const ngram in file.ngrams) ngrams[ngram] = file.scores[file.ngrams[ngram]!]!;
  return { ...file.table, ngrams };
}

async function fromTable(path: string): Promise<Eld> {
  const constructorUrl = pathToFileURL(join(eldFolder(), 'src', 'languageDetector.js'));
  const { createEld } = (await import(constructorUrl.href)) as { createEld: CreateEld };
  const { instance, loadData } = createEld();
  loadData(await readTable(path));
  return instance;
}

/** A detector from `path`'s table, or from eld's own entry when there is no table there. */
export function createDetector(path: string = MODEL_TABLE): Promise<Eld> {
  return existsSync(path) ? fromTable(path) : import('eld/medium').then((module) => module.eld);
}

/**
 * The model, loaded once: at the first detection, or at a component's start where it detects
 * every text (so the first user's turn does not wait for it).
 */
export function loadLanguageDetection(): Promise<Eld> {
  detector ??= createDetector();
  return detector;
}

export interface Detection {
  /** ISO 639-1 code, or undefined when nothing could be said. */
  language: string | undefined;
  reliable: boolean;
}

export async function detectLanguage(text: string): Promise<Detection> {
  const result = (await loadLanguageDetection()).detect(text);
  const language = result.language || undefined;
  return { language, reliable: language !== undefined && result.isReliable() };
}

/**
 * The user's language for a text: the detected one when detection is reliable (offline, eld),
 * else the one the conversation already knew, else the unreliable guess.
 */
export async function userLanguageOf(
  text: string,
  conversation: ConversationRef,
): Promise<string | undefined> {
  const detection = await detectLanguage(text);
  return detection.reliable
    ? detection.language
    : (conversation.user_language ?? detection.language);
}
