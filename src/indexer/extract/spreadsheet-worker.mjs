// @ts-check
/**
 * The inside of the spreadsheet worker thread started by `spreadsheet.ts`: parses the files posted
 * to it, one at a time, with SheetJS and posts back plain data (arrays, strings, numbers), never
 * SheetJS objects. SheetJS 0.18.5 has published advisories (prototype pollution, ReDoS), so it
 * only ever runs here, in a thread that lives for one indexing job's files and whose memory and
 * time the caller bounds.
 *
 * Plain JavaScript (type-checked from its JSDoc), because a new thread starts for every job (and
 * after every failed read): registering the TypeScript loader in it cost about 0.4 s of CPU. SheetJS is loaded as
 * its ES module build (`xlsx/xlsx.mjs`, about 0.06 s): it leaves the codepage tables out until
 * `set_cptable` hands them over, which only legacy xls needs (xlsx and ods are XML; csv is
 * decoded below). The ES build also parses several times faster than the minified `dist` builds
 * (csv 0.15 s against 0.63 s for 20,000 rows; see docs/knowledge.md).
 */
import { isMainThread, parentPort } from 'node:worker_threads';
import * as XLSX from 'xlsx/xlsx.mjs';
import { SHEET_PARSE_OPTIONS } from './sheet-options.mjs';
import { boundedZlib, declaredUnpackedSize } from './zip-bounds.mjs';

/** @typedef {import('./spreadsheet-types.ts').WorkerInput} WorkerInput */
/** @typedef {import('./spreadsheet-types.ts').WorkerSheet} WorkerSheet */
/** @typedef {import('./spreadsheet-types.ts').WorkerReply} WorkerReply */

/** CSV as text: UTF-8 (BOM stripped) when it decodes as such, else Windows-1252. */
/**
 * @param {Uint8Array} bytes
 * @returns {string}
 */
function decodeCsv(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

/**
 * @param {unknown} cell
 * @returns {string}
 */
function cellText(cell) {
  if (typeof cell !== 'object' || cell === null) return '';
  const { w, v } = /** @type {{ w?: unknown, v?: unknown }} */ (cell);
  if (typeof w === 'string') return w.trim();
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
    return String(v).trim();
  }
  return '';
}

/** Rows or cells up to this length are walked index by index; longer ones by their keys. */
const WALK_LIMIT = 4096;

/**
 * Calls `visit` with each present element of a (possibly sparse) array and its index, ascending.
 * A short array is walked index by index. A long one is walked through its own keys, so a sheet
 * with one cell in column XFD or row 1,048,576 costs its cells, not its holes.
 * @param {unknown[]} list
 * @param {(item: unknown, index: number) => void} visit
 */
function eachPresent(list, visit) {
  if (list.length <= WALK_LIMIT) {
    for (let i = 0; i < list.length; i += 1) {
      // Own elements only: a hole must not read through a polluted `Array.prototype`.
      if (Object.hasOwn(list, i)) visit(list[i], i);
    }
    return;
  }
  const keys = Object.keys(list)
    .map(Number)
    .filter((i) => Number.isInteger(i) && i >= 0)
    .sort((x, y) => x - y);
  for (const i of keys) visit(list[i], i);
}

/** Header names: blank or repeated names become `column_N` (N = 1-based column). */
/**
 * @param {string[]} texts
 * @param {number} width
 * @returns {string[]}
 */
function headerNames(texts, width) {
  /** @type {Set<string>} */
  const used = new Set();
  /** @type {string[]} */
  const names = [];
  for (let c = 0; c < width; c += 1) {
    let name = texts[c] ?? '';
    if (name === '' || used.has(name)) name = `column_${c + 1}`;
    for (let n = 2; used.has(name); n += 1) name = `column_${c + 1}_${n}`;
    used.add(name);
    names.push(name);
  }
  return names;
}

/**
 * Parses `input.bytes` and shapes every sheet. A file's failure is a reply; only a failure to
 * load the codepage tables rejects (the caller sees the worker fail).
 */
/**
 * @param {WorkerInput} input
 * @returns {Promise<WorkerReply>}
 */
async function readWorkbook(input) {
  if (input.format === 'xls') {
    XLSX.set_cptable(await import('xlsx/dist/cpexcel.full.mjs'));
  }
  const inflater = boundedZlib(input.maxUnpackedBytes);
  // SheetJS's hook for a native inflater (documented as `CFB.utils.use_zlib`); typed `any` upstream.
  /** @type {{ utils: { use_zlib(zlib: unknown): void } }} */ (XLSX.CFB).utils.use_zlib({
    InflateRaw: inflater.InflateRaw,
  });
  const zipped = input.format === 'xlsx' || input.format === 'ods';
  const declared = zipped && input.bytes.length >= 22 ? declaredUnpackedSize(input.bytes) : 0;
  if (declared > input.maxUnpackedBytes) {
    return tooLarge(`it unpacks to ${declared} bytes; the limit is ${input.maxUnpackedBytes}`);
  }
  /** @type {import('xlsx').WorkBook} */
  let workbook;
  try {
    workbook =
      input.format === 'csv'
        ? XLSX.read(decodeCsv(input.bytes), { ...SHEET_PARSE_OPTIONS, type: 'string', raw: true })
        : XLSX.read(input.bytes, { ...SHEET_PARSE_OPTIONS, type: 'buffer' });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (inflater.exceeded()) {
      return tooLarge(`it unpacks to more than ${input.maxUnpackedBytes} bytes`);
    }
    if (/password|encrypt/i.test(message)) return { ok: false, reason: 'encrypted', message };
    return { ok: false, reason: 'damaged', message: message.slice(0, 200) };
  }
  if (workbook.SheetNames.length > input.maxSheets) {
    const count = workbook.SheetNames.length;
    return tooLarge(`${count} sheets; the limit is ${input.maxSheets}`);
  }
  /** @type {WorkerSheet[]} */
  const sheets = [];
  let cells = 0;
  for (const name of workbook.SheetNames) {
    // Dense sheets are arrays of rows (absolute, 0-based), each an array of cells by column.
    /** @type {unknown} */
    const dense = workbook.Sheets[name];
    if (!Array.isArray(dense)) {
      return { ok: false, reason: 'damaged', message: `sheet "${name}" could not be read` };
    }
    // Flat columns, one entry per data row or per cell: cloning them to the caller costs a small
    // fraction of what an object per row with an array per cell did.
    /** @type {number[]} */
    const rows = [];
    /** @type {number[]} */
    const ends = [];
    /** @type {number[]} */
    const columns = [];
    /** @type {string[]} */
    const texts = [];
    /** @type {string[] | undefined} */
    let headerTexts;
    let width = 0;
    let over = false;
    eachPresent(/** @type {unknown[]} */ (dense), (line, r) => {
      if (over || !Array.isArray(line)) return;
      const start = texts.length;
      eachPresent(/** @type {unknown[]} */ (line), (cell, c) => {
        const text = cellText(cell);
        if (text === '') return;
        columns.push(c);
        texts.push(text);
      });
      const found = texts.length - start;
      if (found === 0) return;
      cells += found;
      if (cells > input.maxCells) {
        over = true;
        return;
      }
      width = Math.max(width, /** @type {number} */ (columns.at(-1)) + 1);
      if (headerTexts === undefined) {
        // The first non-empty row is the header, by column.
        headerTexts = [];
        for (let i = start; i < texts.length; i += 1) {
          headerTexts[/** @type {number} */ (columns[i])] = /** @type {string} */ (texts[i]);
        }
        columns.length = start;
        texts.length = start;
        return;
      }
      rows.push(r + 1);
      ends.push(texts.length);
    });
    if (over) return tooLarge(`more than ${input.maxCells} cells`);
    sheets.push({
      name,
      header: headerTexts ? headerNames(headerTexts, width) : [],
      rows: Int32Array.from(rows),
      ends: Int32Array.from(ends),
      columns: Int32Array.from(columns),
      texts,
    });
  }
  return { ok: true, sheets };
}

/**
 * @param {string} detail
 * @returns {WorkerReply}
 */
function tooLarge(detail) {
  return { ok: false, reason: 'too-large', message: detail };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  // One file per message, in turn. A rejection (the codepage tables failing to load) is left
  // unhandled: it ends the worker, and the caller sees the worker fail.
  port.on('message', (/** @type {WorkerInput} */ input) => {
    void readWorkbook(input).then((reply) => {
      // The index arrays move to the caller without a copy.
      const buffers = reply.ok
        ? reply.sheets.flatMap((sheet) =>
            [sheet.rows, sheet.ends, sheet.columns].map(
              (a) => /** @type {ArrayBuffer} */ (a.buffer),
            ),
          )
        : [];
      port.postMessage(reply, buffers);
    });
  });
}
