// @ts-check
// node scripts/lib/language-model.mjs OUT_DIR: writes the n-gram table of eld's `medium` model as
// JSON (OUT_DIR/eld-medium.json), part of `npm run build`. eld ships the table as one JavaScript
// object literal; V8 needs about 90 MB of parser memory to compile it, which glibc then keeps, so
// a process that imported it held about 220 MB. `JSON.parse` of the same table needs no parser
// memory (src/shared/languages/detect.ts loads it; docs/deployment.md, "Compiled").
// Of its 105,548 n-grams' score sets only 19,238 differ: the file lists each distinct set once
// (`scores`) and gives each n-gram the index of its set, so the loaded table shares one object
// per distinct set (16 MiB of heap instead of 34) and is otherwise eld's own.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: node scripts/lib/language-model.mjs OUT_DIR\n');
  process.exit(2);
}
// eld's exports name the entry points only; the table sits beside the `medium` entry.
const table = new URL('../ngrams/medium.js', import.meta.resolve('eld/medium'));
/** @type {{ ngramsData: { ngrams: Record<string, Record<string, number>> } }} */
const { ngramsData } = await import(table.href);
const { ngrams, ...rest } = ngramsData;
/** @type {Map<string, number>} each distinct score set's index, by its JSON */
const indexOf = new Map();
/** @type {Record<string, number>[]} */
const scores = [];
/** @type {Record<string, number>} */
const byNgram = {};
for (const [ngram, set] of Object.entries(ngrams)) {
  const key = JSON.stringify(set);
  let index = indexOf.get(key);
  if (index === undefined) {
    index = scores.push(set) - 1;
    indexOf.set(key, index);
  }
  byNgram[ngram] = index;
}
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'eld-medium.json'),
  JSON.stringify({ format: 'eld-shared-scores', table: rest, scores, ngrams: byNgram }),
);
