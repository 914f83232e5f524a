/**
 * The baseline, run as its own process per kind so its peak memory is its own: the libraries
 * alone on the same files, with nothing of ours around them.
 *
 *   raw.ts pdf <warm-up file> <file> ...     pdf-parse: `new PDFParse({ data })`, `getText()`
 *                                            (every page)
 *   raw.ts sheets <warm-up file> <file> ...  SheetJS: `XLSX.read` with the options our worker
 *                                            uses, then `sheet_to_json` of every sheet (the first
 *                                            row is the header)
 *
 * The warm-up file is read first, off the clock (the indexer is warmed up the same way: first use
 * loads pdf.js's worker code and fonts). Files are read into memory before the clock starts.
 * Prints one JSON line on stdout: `{ units, seconds, cpuSeconds, characters, maxRssBytes }`,
 * units being pages or data rows.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { PDFParse } from 'pdf-parse';
import XLSX from 'xlsx';
import { SHEET_PARSE_OPTIONS } from '../../src/indexer/extract/sheet-options.mjs';

const [kind, warmup, ...files] = process.argv.slice(2);
if ((kind !== 'pdf' && kind !== 'sheets') || warmup === undefined) {
  throw new Error('usage: raw.ts pdf|sheets <warm-up file> <file> ...');
}
const contents = files.map((file) => ({ file, bytes: readFileSync(file) }));

async function readPdf(bytes: Buffer): Promise<{ units: number; characters: number }> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    const result = await parser.getText();
    const characters = result.pages.reduce((sum, page) => sum + page.text.length, 0);
    return { units: result.total, characters };
  } finally {
    await parser.destroy();
  }
}

function readSheets(file: string, bytes: Buffer): { units: number; characters: number } {
  const book =
    extname(file) === '.csv'
      ? XLSX.read(bytes.toString('utf8'), { ...SHEET_PARSE_OPTIONS, type: 'string', raw: true })
      : XLSX.read(bytes, { ...SHEET_PARSE_OPTIONS, type: 'buffer' });
  let units = 0;
  let characters = 0;
  for (const name of book.SheetNames) {
    const rows = XLSX.utils.sheet_to_json<Record<string, unknown>>(book.Sheets[name]!, {
      raw: false,
    });
    units += rows.length;
    for (const row of rows) {
      for (const value of Object.values(row)) characters += String(value).length;
    }
  }
  return { units, characters };
}

const read = (file: string, bytes: Buffer) =>
  kind === 'pdf' ? readPdf(bytes) : Promise.resolve(readSheets(file, bytes));

await read(warmup, readFileSync(warmup));
let units = 0;
let characters = 0;
const cpu = process.cpuUsage();
const start = performance.now();
for (const { file, bytes } of contents) {
  const result = await read(file, bytes);
  units += result.units;
  characters += result.characters;
}
const seconds = (performance.now() - start) / 1000;
const used = process.cpuUsage(cpu);
const cpuSeconds = (used.user + used.system) / 1e6;
const maxRssBytes = process.resourceUsage().maxRSS * 1024;
console.log(JSON.stringify({ units, seconds, cpuSeconds, characters, maxRssBytes }));
