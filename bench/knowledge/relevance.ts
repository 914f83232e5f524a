/**
 * The quality bench's arithmetic: which hits answer a question, recall@5 and nDCG@10, their means
 * per kind of question and mode, and the table and goals printed. Binary relevance: a hit answers
 * a question when its text matches the question's `answer` (questions.ts).
 */
import type { SearchMode } from '../../src/shared/knowledge/hybrid.ts';
import type { SearchHit } from '../../src/shared/knowledge/search.ts';
import { QUESTION_KINDS, type Question, type QuestionKind } from './questions.ts';

/** A chunk's text as the judgement reads it: white space made one space, as the chunker does. */
export const flat = (text: string): string => text.replace(/\s+/g, ' ');

/** Whether a hit's text answers the question. */
export const answers = (question: Question, text: string): boolean =>
  question.answer.test(flat(text));

/** One question searched in one mode. */
export interface Judged {
  question: Question;
  mode: SearchMode;
  /** Relevance of the hits, best first (at most 10). */
  relevant: boolean[];
  /** Chunks of the collection that answer it (at least 1). */
  answering: number;
  hits: SearchHit[];
}

/** 1 when a hit among the first `k` answers the question, else 0. */
export function recallAt(judged: Judged, k: number): number {
  return judged.relevant.slice(0, k).some(Boolean) ? 1 : 0;
}

/**
 * Normalised discounted cumulative gain at `k`: Σ rel_i / log2(i + 1) over the first `k` hits
 * (i from 1), divided by the same sum for the best possible order, in which the first
 * min(answering, k) hits all answer.
 */
export function ndcgAt(judged: Judged, k: number): number {
  const gain = (i: number): number => 1 / Math.log2(i + 2);
  let dcg = 0;
  judged.relevant.slice(0, k).forEach((relevant, i) => (dcg += relevant ? gain(i) : 0));
  let ideal = 0;
  for (let i = 0; i < Math.min(judged.answering, k); i += 1) ideal += gain(i);
  return dcg / ideal;
}

/** Rank (1-based) of the first hit that answers, or undefined within the hits searched. */
export const firstAnswer = (judged: Judged): number | undefined => {
  const i = judged.relevant.indexOf(true);
  return i < 0 ? undefined : i + 1;
};

export interface Scores {
  questions: number;
  recall5: number;
  ndcg10: number;
}

/** Mean recall@5 and nDCG@10 of `judged` for `mode`, for every question or for one kind. */
export function scores(judged: readonly Judged[], mode: SearchMode, kind?: QuestionKind): Scores {
  const picked = judged.filter((j) => j.mode === mode && (!kind || j.question.kind === kind));
  const mean = (f: (j: Judged) => number): number =>
    picked.reduce((sum, j) => sum + f(j), 0) / Math.max(1, picked.length);
  return {
    questions: picked.length,
    recall5: mean((j) => recallAt(j, 5)),
    ndcg10: mean((j) => ndcgAt(j, 10)),
  };
}

const MODES: readonly SearchMode[] = ['words', 'semantic', 'hybrid'];

/** The side-by-side table: one row per kind and one for every question, recall@5 then nDCG@10. */
export function qualityTable(judged: readonly Judged[]): string {
  const rows: string[][] = [];
  for (const kind of [...QUESTION_KINDS, undefined]) {
    const per = MODES.map((mode) => scores(judged, mode, kind));
    rows.push([
      `${kind ?? 'all'} (${per[0]!.questions})`,
      ...per.map((s) => s.recall5.toFixed(2)),
      ...per.map((s) => s.ndcg10.toFixed(2)),
    ]);
  }
  const header = [
    'questions',
    ...MODES.map((m) => `${m} R@5`),
    ...MODES.map((m) => `${m} nDCG@10`),
  ];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]): string =>
    `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`;
  const rule = `| ${widths.map((w, c) => (c === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** The issue's goals for hybrid search, each with the figure measured and whether it is met. */
export function goalLines(judged: readonly Judged[]): string[] {
  const hybrid = scores(judged, 'hybrid').recall5;
  const words = scores(judged, 'words').recall5;
  const paraphrase = scores(judged, 'hybrid', 'paraphrase').recall5;
  const exact = scores(judged, 'hybrid', 'exact').recall5;
  const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
  return [
    `hybrid recall@5 overall ${hybrid.toFixed(2)} (goal >= 0.60): ${verdict(hybrid >= 0.6)}`,
    `hybrid / words recall@5 ${(words > 0 ? hybrid / words : Infinity).toFixed(2)}x (goal >= 1.30x): ${verdict(hybrid >= 1.3 * words)}`,
    `hybrid recall@5 on paraphrases ${paraphrase.toFixed(2)} (goal >= 0.50): ${verdict(paraphrase >= 0.5)}`,
    `hybrid recall@5 on exact terms ${exact.toFixed(2)} (goal >= 0.85): ${verdict(exact >= 0.85)}`,
  ];
}

/**
 * Every question hybrid search misses at 5, with the rank of its first answering hit per mode
 * (`-`: not in the first 10): what the words side and the fusion get wrong.
 */
export function missLines(judged: readonly Judged[]): string[] {
  const lines: string[] = [];
  const byQuestion = new Map<Question, Judged[]>();
  for (const j of judged) byQuestion.set(j.question, [...(byQuestion.get(j.question) ?? []), j]);
  for (const kind of QUESTION_KINDS) {
    for (const [question, modes] of byQuestion) {
      const hybrid = modes.find((j) => j.mode === 'hybrid');
      if (question.kind !== kind || !hybrid || recallAt(hybrid, 5) === 1) continue;
      const ranks = MODES.map((mode) => {
        const j = modes.find((m) => m.mode === mode);
        return `${mode[0]}=${(j && firstAnswer(j)) ?? '-'}`;
      });
      lines.push(`${kind.padEnd(10)} ${ranks.join(' ').padEnd(14)} ${question.question}`);
    }
  }
  return lines;
}

/** Every search's hits as JSON lines: question, kind, mode, rank, whether it answers, source, ranks, text. */
export function hitsJson(judged: readonly Judged[]): string {
  return judged
    .flatMap((j) =>
      j.hits.map((hit, i) =>
        JSON.stringify({
          question: j.question.question,
          kind: j.question.kind,
          mode: j.mode,
          rank: i + 1,
          answers: j.relevant[i],
          chunk_id: hit.chunk_id,
          source: hit.source,
          words_rank: hit.words_rank,
          vector_rank: hit.vector_rank,
          vector_score: hit.vector_score,
          text: flat(hit.text),
        }),
      ),
    )
    .map((line) => `${line}\n`)
    .join('');
}
