// @ts-check
/**
 * The inside of the spreadsheet worker thread started by `spreadsheet.ts`: parses one file with
 * SheetJS and posts back plain data (arrays, strings, numbers), never SheetJS objects. SheetJS
 * 0.18.5 has published advisories (prototype pollution, ReDoS), so it only ever runs here, in a
 * thread that lives for one file and whose memory and time the caller bounds.
 *
 * Plain JavaScript (type-checked from its JSDoc), because a new thread starts for every file:
 * registering the TypeScript loader in it cost about 0.4 s of CPU per file, and loading SheetJS's
 * default build (which bundles every codepage table) about 0.3 s more. The thread loads SheetJS's
 * core build (about 0.08 s), plus the codepage tables only for legacy xls, the one format read
 * here whose text can be in a codepage (xlsx and ods are XML; csv is decoded below).
 */
import { createRequire } from 'node:module';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import zlib from 'node:zlib';
import { SHEET_PARSE_OPTIONS } from './sheet-options.mjs';

/** @typedef {import('./spreadsheet-types.ts').WorkerInput} WorkerInput */
/** @typedef {import('./spreadsheet-types.ts').WorkerSheet} WorkerSheet */
/** @typedef {import('./spreadsheet-types.ts').WorkerReply} WorkerReply */

const require = createRequire(import.meta.url);

/**
 * SheetJS's core build; with the codepage tables when `codepages`. The build reads them from the
 * global `cptable` when it is made, as its default build does through `require`.
 * @param {boolean} codepages
 * @returns {typeof import('xlsx')}
 */
function loadSheetJs(codepages) {
  if (codepages) {
    /** @type {{ cptable?: unknown }} */ (globalThis).cptable = require('xlsx/dist/cpexcel.js');
  }
  return require('xlsx/dist/xlsx.core.min.js');
}

class TooLarge extends Error {}

/**
 * A stand-in for the `zlib` module that SheetJS inflates zip entries with: native zlib (faster
 * than SheetJS's own inflater) with an output cap, so a zip bomb stops at `budget` bytes in total
 * instead of growing buffers outside the V8 heap, where `resourceLimits` does not reach.
 */
/**
 * @param {number} budget
 * @returns {{ InflateRaw: new () => unknown, exceeded: () => boolean }}
 */
function boundedZlib(budget) {
  let left = budget;
  let exceeded = false;
  class BoundedInflateRaw {
    #inner = zlib.createInflateRaw({ maxOutputLength: Math.max(1, left) });
    _finishFlushFlag = zlib.constants.Z_FINISH;
    get bytesRead() {
      return this.#inner.bytesWritten;
    }
    /**
     * @param {Uint8Array} chunk
     * @param {number} flush
     * @returns {Buffer}
     */
    _processChunk(chunk, flush) {
      // `_processChunk` is what SheetJS calls on zlib's inflater; it is not in Node's typings.
      const inner = /** @type {{ _processChunk(c: Uint8Array, f: number): Buffer }} */ (
        /** @type {unknown} */ (this.#inner)
      );
      try {
        const out = inner._processChunk(chunk, flush);
        left -= out.length;
        if (left < 0) throw new TooLarge();
        return out;
      } catch (error) {
        if (error instanceof TooLarge || codeOf(error) === 'ERR_BUFFER_TOO_LARGE') {
          exceeded = true;
          throw new TooLarge();
        }
        throw error;
      }
    }
  }
  return { InflateRaw: BoundedInflateRaw, exceeded: () => exceeded };
}

/**
 * The uncompressed size a zip's central directory declares for all its entries together, or 0
 * when there is no readable directory (then SheetJS decides). Declared sizes can lie; the bounded
 * inflater catches liars, this only refuses honest bombs before anything is inflated.
 */
/**
 * @param {Uint8Array} bytes
 * @returns {number}
 */
function declaredUnpackedSize(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let end = bytes.length - 22; end >= lowest; end -= 1) {
    if (view.getUint32(end, true) !== 0x06054b50) continue;
    const count = view.getUint16(end + 10, true);
    let at = view.getUint32(end + 16, true);
    let total = 0;
    for (let i = 0; i < count && at + 46 <= bytes.length; i += 1) {
      if (view.getUint32(at, true) !== 0x02014b50) break;
      total += view.getUint32(at + 24, true);
      const names = view.getUint16(at + 28, true) + view.getUint16(at + 30, true);
      at += 46 + names + view.getUint16(at + 32, true);
    }
    return total;
  }
  return 0;
}

/**
 * @param {unknown} error
 * @returns {unknown}
 */
function codeOf(error) {
  return typeof error === 'object' && error !== null
    ? /** @type {{ code?: unknown }} */ (error).code
    : undefined;
}

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

/** Own, present indices of a (possibly sparse) array, ascending; never walks the holes. */
/**
 * @param {unknown[]} list
 * @returns {number[]}
 */
function indices(list) {
  return Object.keys(list)
    .map(Number)
    .filter((i) => Number.isInteger(i) && i >= 0)
    .sort((a, b) => a - b);
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

/** Parses `input.bytes` and shapes every sheet; never throws. */
/**
 * @param {WorkerInput} input
 * @returns {WorkerReply}
 */
function readWorkbook(input) {
  const XLSX = loadSheetJs(input.format === 'xls');
  const inflater = boundedZlib(input.maxUnpackedBytes);
  // SheetJS's hook for a native inflater (documented as `CFB.utils.use_zlib`); typed `any` upstream.
  /** @type {{ utils: { use_zlib(zlib: unknown): void } }} */ (XLSX.CFB).utils.use_zlib({
    ...zlib,
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
    const grid = /** @type {unknown[]} */ (dense);
    /** @type {WorkerSheet['rows']} */
    const rows = [];
    let width = 0;
    for (const r of indices(grid)) {
      const line = grid[r];
      if (!Array.isArray(line)) continue;
      /** @type {[number, string][]} */
      const found = [];
      for (const c of indices(/** @type {unknown[]} */ (line))) {
        const text = cellText(/** @type {unknown[]} */ (line)[c]);
        if (text !== '') found.push([c, text]);
      }
      if (found.length === 0) continue;
      cells += found.length;
      if (cells > input.maxCells) return tooLarge(`more than ${input.maxCells} cells`);
      width = Math.max(width, (found.at(-1)?.[0] ?? 0) + 1);
      rows.push({ row: r + 1, cells: found });
    }
    const first = rows.shift();
    /** @type {string[]} */
    const texts = [];
    for (const [c, text] of first?.cells ?? []) texts[c] = text;
    sheets.push({ name, header: first ? headerNames(texts, width) : [], rows });
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
  parentPort.postMessage(readWorkbook(/** @type {WorkerInput} */ (workerData)));
}
