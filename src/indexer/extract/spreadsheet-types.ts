/** What crosses the thread boundary of the spreadsheet worker (`spreadsheet-worker.mjs`). */

export type SpreadsheetFormat = 'xlsx' | 'xls' | 'ods' | 'csv';

/** What the caller hands the worker (as `workerData`). */
export interface WorkerInput {
  bytes: Uint8Array;
  format: SpreadsheetFormat;
  maxCells: number;
  maxSheets: number;
  /** Most bytes all zip entries together may inflate to. */
  maxUnpackedBytes: number;
}

/**
 * One sheet as it crosses the thread boundary, in flat columns: data row `i` (1-based sheet row
 * `rows[i]`) holds the cells `ends[i - 1]` (0 for the first) up to `ends[i]`; cell `j` is the
 * text `texts[j]` in the 0-based column `columns[j]`, whose name is `header[columns[j]]`.
 */
export interface WorkerSheet {
  name: string;
  header: string[];
  rows: Int32Array;
  ends: Int32Array;
  columns: Int32Array;
  texts: string[];
}

export type WorkerReply =
  | { ok: true; sheets: WorkerSheet[] }
  | { ok: false; reason: 'too-large' | 'encrypted' | 'damaged'; message: string };
