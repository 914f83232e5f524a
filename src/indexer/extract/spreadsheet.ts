/**
 * Rows of a spreadsheet (xlsx, xls, ods, csv), every sheet, read by SheetJS inside a worker thread
 * that lives for one indexing job's files (or one file), with a memory cap (`resourceLimits`) and
 * a wall-clock timeout per file after which it is terminated. What the worker sends back is treated as untrusted data: its shape is
 * checked and the limits are counted again here. See docs/knowledge.md for what this covers.
 */
import { Worker } from 'node:worker_threads';
import { BotwireError } from '../../shared/errors.ts';
import { unreadable } from './pdf.ts';
import type { SpreadsheetFormat, WorkerInput, WorkerSheet } from './spreadsheet-types.ts';

export type { SpreadsheetFormat } from './spreadsheet-types.ts';

/** One data row: its 1-based row number in the sheet and its non-empty cells by header name. */
export interface SheetRow {
  row: number;
  cells: Record<string, string>;
}

/** One sheet: the first non-empty row is the header; every later non-empty row is a data row. */
export interface SheetRows {
  sheet: string;
  /** Column names; a blank or repeated name becomes `column_N` (N = 1-based column). */
  header: string[];
  rows: SheetRow[];
}

/** Limits for {@link extractSpreadsheet}. */
export interface SpreadsheetLimits {
  /** Most non-empty cells over all sheets, header rows included. @defaultValue 2000000 */
  maxCells?: number;
  /** Most sheets in one workbook. @defaultValue 100 */
  maxSheets?: number;
  /** Most bytes the zip entries of an xlsx or ods may inflate to. @defaultValue 268435456 (256 MiB) */
  maxUnpackedBytes?: number;
  /** The worker's V8 old-generation heap cap, in MiB (`maxOldGenerationSizeMb`). @defaultValue 512 */
  maxMemoryMb?: number;
  /** Wall-clock time for the whole read, worker start included, in milliseconds. @defaultValue 30000 */
  timeoutMs?: number;
}

export const SPREADSHEET_DEFAULTS = {
  maxCells: 2_000_000,
  maxSheets: 100,
  maxUnpackedBytes: 256 * 1024 * 1024,
  maxMemoryMb: 512,
  timeoutMs: 30_000,
} as const;

// Plain JavaScript, started without the TypeScript loader (see the module's comment).
const WORKER = new URL('./spreadsheet-worker.mjs', import.meta.url);

/**
 * Reads spreadsheets one at a time in a worker thread kept between them: an indexing job makes one
 * for its files (one collection's content) and closes it at the end, so each file does not pay for
 * a thread's start and a cold JIT. The worker is terminated, and the next file gets a fresh one,
 * when a read times out, runs out of memory, fails or answers in a malformed way.
 */
export class SpreadsheetReader {
  readonly #settings: Required<SpreadsheetLimits>;
  #worker: Worker | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(limits: SpreadsheetLimits = {}) {
    this.#settings = { ...SPREADSHEET_DEFAULTS, ...limits };
  }

  /**
   * Reads every sheet of a spreadsheet, after the reads asked for before it.
   *
   * @param bytes - The file's content (copied to the worker).
   * @param format - How to parse it; the caller has checked that the content fits the format.
   * @throws BotwireError `BW_ERR_DOCUMENT_UNREADABLE` (`details.reason` `too-large`, `encrypted`
   *   or `damaged`) when the file cannot be read within the limits; `BW_ERR_INTERNAL` when the
   *   worker itself fails (it could not start, or crashed without an answer) or the reader is
   *   closed.
   */
  read(bytes: Uint8Array, format: SpreadsheetFormat): Promise<SheetRows[]> {
    const run = this.#queue.then(() => this.#read(bytes, format));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Terminates the worker at once; a read in progress fails with `BW_ERR_INTERNAL`. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#stop();
  }

  async #read(bytes: Uint8Array, format: SpreadsheetFormat): Promise<SheetRows[]> {
    if (this.#closed) throw new BotwireError('BW_ERR_INTERNAL', 'the spreadsheet reader is closed');
    const settings = this.#settings;
    const input: WorkerInput = {
      bytes,
      format,
      maxCells: settings.maxCells,
      maxSheets: settings.maxSheets,
      maxUnpackedBytes: settings.maxUnpackedBytes,
    };
    const worker = (this.#worker ??= this.#start());
    try {
      const reply = await new Promise<unknown>((resolve, reject) => {
        const settle = (): void => {
          clearTimeout(timer);
          worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        };
        const timer = setTimeout(() => {
          settle();
          reject(tooLarge(`it could not be read within ${settings.timeoutMs} ms`));
        }, settings.timeoutMs);
        const onMessage = (message: unknown): void => {
          settle();
          resolve(message);
        };
        const onError = (error: Error & { code?: string }): void => {
          settle();
          if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
            reject(
              tooLarge(`reading it needs more than ${settings.maxMemoryMb} MiB of memory`, error),
            );
          } else {
            reject(
              new BotwireError('BW_ERR_INTERNAL', 'the spreadsheet worker failed', {
                cause: error,
              }),
            );
          }
        };
        const onExit = (code: number): void => {
          settle();
          reject(new BotwireError('BW_ERR_INTERNAL', `the spreadsheet worker exited (${code})`));
        };
        worker.on('message', onMessage).on('error', onError).on('exit', onExit);
        worker.postMessage(input);
      });
      return toSheets(reply, settings);
    } catch (error) {
      // A worker that timed out, failed or answered out of shape is not asked again.
      await this.#stop();
      throw error;
    }
  }

  #start(): Worker {
    const worker = new Worker(WORKER, {
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.#settings.maxMemoryMb },
      // SheetJS writes warnings to the console; they must not reach our logs unstructured.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    return worker;
  }

  async #stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }
}

/**
 * Reads every sheet of a spreadsheet: with `reader`, in its worker; else in a worker thread of its
 * own, terminated after the file. Throws as {@link SpreadsheetReader.read}.
 */
export async function extractSpreadsheet(
  bytes: Uint8Array,
  format: SpreadsheetFormat,
  limits: SpreadsheetLimits = {},
  reader?: SpreadsheetReader,
): Promise<SheetRows[]> {
  if (reader) return reader.read(bytes, format);
  const own = new SpreadsheetReader(limits);
  try {
    return await own.read(bytes, format);
  } finally {
    await own.close();
  }
}

function tooLarge(detail: string, cause?: unknown): BotwireError {
  return unreadable('too-large', `the spreadsheet is too large (${detail})`, cause);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** An array whose every element, holes included, is a string (`every` would skip holes). */
function isStringList(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i += 1) if (typeof value[i] !== 'string') return false;
  return true;
}

function malformed(): BotwireError {
  return new BotwireError('BW_ERR_INTERNAL', 'the spreadsheet worker sent a malformed reply');
}

/**
 * Checks the worker's reply field by field and builds the result from scratch (exported for the
 * tests of hostile replies).
 * @throws BotwireError `BW_ERR_INTERNAL` for a reply of the wrong shape; the reply's own refusals
 *   (`too-large`, `encrypted`, `damaged`) as `BW_ERR_DOCUMENT_UNREADABLE`.
 */
export function toSheets(
  reply: unknown,
  limits: { maxCells: number; maxSheets: number },
): SheetRows[] {
  if (!isRecord(reply)) throw malformed();
  if (reply.ok === false) {
    const message = typeof reply.message === 'string' ? reply.message : 'unknown';
    switch (reply.reason) {
      case 'too-large':
        throw tooLarge(message);
      case 'encrypted':
        throw unreadable('encrypted', 'the spreadsheet is encrypted (it needs a password to open)');
      case 'damaged':
        throw unreadable('damaged', `the spreadsheet is damaged: ${message}`);
      default:
        throw malformed();
    }
  }
  if (reply.ok !== true || !Array.isArray(reply.sheets)) throw malformed();
  if (reply.sheets.length > limits.maxSheets) {
    throw tooLarge(`${reply.sheets.length} sheets; the limit is ${limits.maxSheets}`);
  }
  let cells = 0;
  return reply.sheets.map((sheet: unknown): SheetRows => {
    if (!isWorkerSheet(sheet)) throw malformed();
    const { name, header, rows, ends, columns, texts } = sheet;
    cells += texts.length;
    if (cells > limits.maxCells) throw tooLarge(`more than ${limits.maxCells} cells`);
    const out: SheetRow[] = [];
    let start = 0;
    for (let i = 0; i < rows.length; i += 1) {
      const row = rows[i]!;
      const end = ends[i]!;
      if (row < 1 || end < start || end > texts.length) throw malformed();
      const entries: [string, string][] = [];
      for (let j = start; j < end; j += 1) {
        const column = columns[j]!;
        const name = column < header.length ? header[column] : undefined;
        if (name === undefined) throw malformed();
        entries.push([name, texts[j]!]);
      }
      // fromEntries defines own properties, so a header named "__proto__" stays a plain key.
      out.push({ row, cells: Object.fromEntries(entries) });
      start = end;
    }
    if (start !== texts.length) throw malformed();
    return { sheet: name, header: [...header], rows: out };
  });
}

/** The shape of a {@link WorkerSheet}, index arrays of matching lengths and unique header names. */
function isWorkerSheet(sheet: unknown): sheet is WorkerSheet {
  if (!isRecord(sheet) || typeof sheet.name !== 'string' || !isStringList(sheet.header)) {
    return false;
  }
  const { header, rows, ends, columns, texts } = sheet;
  return (
    new Set(header).size === header.length &&
    rows instanceof Int32Array &&
    ends instanceof Int32Array &&
    columns instanceof Int32Array &&
    isStringList(texts) &&
    rows.length === ends.length &&
    columns.length === texts.length
  );
}
