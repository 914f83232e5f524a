/**
 * The chunker's cost as its input doubles, on the text shapes that made it super-linear: long
 * paragraphs with no sentence punctuation (what pdf.js gives for a page of run-on text), text
 * without any whitespace, and table-like lines (short cells, no punctuation, no blank lines, as
 * pdf.js lays out a table-heavy page). Prints one table: milliseconds, characters given to
 * Intl.Segmenter, and the ratio to the previous size (2.0 is linear).
 *
 *   node --import tsx bench/knowledge/chunking.ts          # 89 k to 1.4 M characters
 *   BENCH_CHUNK_MAX=2850000 node --import tsx bench/knowledge/chunking.ts
 */
import { loadavg } from 'node:os';
import { chunkPages } from '../../src/indexer/chunk.ts';
import { prng, type Random } from './text.ts';

const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'epsilon',
  'zeta',
  'Grüße',
  'café',
  'über',
  'naïve',
];

function unpunctuated(random: Random, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = WORDS[Math.floor(random() * WORDS.length)]!;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ').slice(0, chars);
}

const noSpaces = (random: Random, chars: number): string =>
  unpunctuated(random, chars).replace(/ /g, '');

function table(random: Random, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let row = 1; length < chars; row += 1) {
    const cells = [
      `R${row}`,
      String(Math.floor(random() * 1e6)),
      'Zürich',
      `${(random() * 100).toFixed(2)} €`,
      'ok',
    ];
    const line = cells.join('   ');
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

const SHAPES: Record<string, (random: Random, chars: number) => string> = {
  unpunctuated,
  'no spaces': noSpaces,
  table,
};

const max = Number(process.env.BENCH_CHUNK_MAX ?? 1_424_000);
const rows: string[] = [];
rows.push('| text | characters | ms | chars segmented | chunks | ms ratio to half the size |');
rows.push('|---|---:|---:|---:|---:|---:|');
for (const [shape, make] of Object.entries(SHAPES)) {
  let previous: number | undefined;
  for (let chars = 89_000; chars <= max; chars *= 2) {
    const text = make(prng(7), chars);
    let segmented = 0;
    const started = performance.now();
    const chunks = chunkPages([{ page: 1, text }], { onSegment: (n) => (segmented += n) });
    const ms = performance.now() - started;
    const ratio = previous === undefined ? '' : (ms / previous).toFixed(2);
    rows.push(
      `| ${shape} | ${chars} | ${ms.toFixed(0)} | ${segmented} | ${chunks.length} | ${ratio} |`,
    );
    previous = ms;
  }
}
const [one, five] = loadavg();
process.stdout.write(
  `${rows.join('\n')}\n\nload average (1 min, 5 min): ${one!.toFixed(2)}, ${five!.toFixed(2)}\n`,
);
