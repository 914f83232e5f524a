/**
 * Would the embedded model find paraphrased questions better if each chunk were embedded as
 * several shorter windows (the chunk scoring its best window) instead of once? The quality
 * bench's corpus and questions (handbook.ts, questions.ts), ranked by exact cosine outside the
 * vector index, so only the model and the window size vary: recall@5 per kind of question for
 * whole chunks and for windows of at most 600, 300 and 150 characters (sentences joined until
 * the next would pass the size), with the embedding time and the machine's load.
 *
 *   node --import tsx bench/knowledge/windows.ts        # about 10 minutes
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runIndexJob } from '../../src/indexer/run-job.ts';
import { createDb } from '../../src/shared/db.ts';
import { createEmbedders } from '../../src/shared/embeddings/embedders.ts';
import { LocalEmbeddingProvider } from '../../src/shared/embeddings/local-provider.ts';
import { dot } from '../../src/shared/embeddings/vectors.ts';
import { createJob } from '../../src/shared/knowledge/jobs.ts';
import { collectionDir } from '../../src/shared/knowledge/names.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { LOCAL_ONLY } from '../../test/support/knowledge-fixtures.ts';
import { cleanups, commonOptions, openScratch, runBench } from '../lib/setup.ts';
import { handbookPdfs } from './handbook.ts';
import { QUESTION_KINDS, QUESTIONS } from './questions.ts';
import { answers, flat } from './relevance.ts';

const COLLECTION = 'debian-handbook';
const SIZES = [Infinity, 600, 300, 150];

/** `text` as windows of whole sentences, each at most `max` characters (a longer sentence alone). */
function windows(text: string, max: number): string[] {
  if (max === Infinity) return [text];
  const out: string[] = [];
  let current = '';
  for (const { segment } of new Intl.Segmenter('en', { granularity: 'sentence' }).segment(
    flat(text),
  )) {
    if (current !== '' && current.length + segment.length > max) {
      out.push(current.trim());
      current = '';
    }
    current += segment;
  }
  if (current.trim() !== '') out.push(current.trim());
  return out;
}

const load = (): string => loadavg()[0]!.toFixed(2);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bwbench-windows-'));
  cleanups.push({ what: `remove ${dir}`, run: () => rm(dir, { recursive: true, force: true }) });
  const storageDir = join(dir, 'storage');
  const book = await handbookPdfs(collectionDir(storageDir, COLLECTION));
  const { databaseUrl } = await openScratch(commonOptions(), 'bench-windows');
  const db = createDb(databaseUrl.toString(), { poolMax: 4 });
  cleanups.push({ what: 'scratch database pool', run: () => db.destroy() });
  const model = new LocalEmbeddingProvider({ batch: 16 });
  cleanups.push({ what: 'embedded model', run: () => model.close() });

  // The chunks as the indexer makes them (no vectors: this bench makes its own).
  const embedders = createEmbedders({ ...LOCAL_ONLY, defaultChoice: 'none' }, { local: model });
  await createJob(db, {
    jobId: 'job_bench_windows',
    collection: COLLECTION,
    files: book.files,
    options: { embedding_model: 'none' },
  });
  const logger = createLogger({ component: 'bench-windows', level: 'warn' });
  await runIndexJob({ db, storageDir, limits: {}, logger, embedders }, 'job_bench_windows');
  const texts = (await db('chunks').select<{ text: string }[]>('text').orderBy('id')).map(
    (r) => r.text,
  );
  const questions = await model.embed(QUESTIONS.map((q) => q.question));
  console.log(`${texts.length} chunks, ${QUESTIONS.length} questions | load ${load()}\n`);
  console.log(`| windows | vectors | embedding s | ${[...QUESTION_KINDS, 'all'].join(' | ')} |`);
  console.log(`|---|---|---|${[...QUESTION_KINDS, 'all'].map(() => '---').join('|')}|`);

  for (const size of SIZES) {
    const owner: number[] = [];
    const pieces: string[] = [];
    texts.forEach((text, i) => {
      for (const piece of windows(text, size)) {
        owner.push(i);
        pieces.push(piece);
      }
    });
    const started = performance.now();
    const vectors: Float32Array[] = [];
    for (let i = 0; i < pieces.length; i += 64) {
      vectors.push(...(await model.embed(pieces.slice(i, i + 64))));
    }
    const seconds = (performance.now() - started) / 1000;
    const found: Record<string, number[]> = {};
    for (const [qi, question] of QUESTIONS.entries()) {
      const best = new Float32Array(texts.length).fill(-2);
      vectors.forEach((v, wi) => {
        const score = dot(questions[qi]!, v);
        if (score > best[owner[wi]!]!) best[owner[wi]!] = score;
      });
      const top = [...best.keys()].sort((a, b) => best[b]! - best[a]!).slice(0, 5);
      const hit = top.some((i) => answers(question, texts[i]!)) ? 1 : 0;
      (found[question.kind] ??= []).push(hit);
      (found.all ??= []).push(hit);
    }
    const recall = [...QUESTION_KINDS, 'all'].map((kind) => {
      const hits = found[kind] ?? [];
      return (hits.reduce((a, b) => a + b, 0) / Math.max(1, hits.length)).toFixed(2);
    });
    const name = size === Infinity ? 'whole chunk' : `≤ ${size} chars`;
    console.log(
      `| ${name} | ${pieces.length} | ${seconds.toFixed(0)} | ${recall.join(' | ')} | load ${load()}`,
    );
  }
}

await runBench(main);
process.exit();
