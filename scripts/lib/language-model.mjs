// @ts-check
// node scripts/lib/language-model.mjs OUT_DIR: writes the n-gram table of eld's `medium` model as
// JSON (OUT_DIR/eld-medium.json), part of `npm run build`. eld ships the table as one JavaScript
// object literal; V8 needs about 90 MB of parser memory to compile it, which glibc then keeps, so
// a process that imported it held about 220 MB. `JSON.parse` of the same table needs no parser
// memory and leaves about 100 MB (src/shared/languages/detect.ts loads it; docs/deployment.md,
// "Compiled").
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: node scripts/lib/language-model.mjs OUT_DIR\n');
  process.exit(2);
}
// eld's exports name the entry points only; the table sits beside the `medium` entry.
const table = new URL('../ngrams/medium.js', import.meta.resolve('eld/medium'));
/** @type {{ ngramsData: unknown }} */
const { ngramsData } = await import(table.href);
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'eld-medium.json'), JSON.stringify(ngramsData));
