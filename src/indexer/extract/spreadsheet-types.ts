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

/** One sheet as it crosses the thread boundary: cells as `[column index, text]` pairs. */
export interface WorkerSheet {
  name: string;
  header: string[];
  rows: { row: number; cells: [number, string][] }[];
}

export type WorkerReply =
  | { ok: true; sheets: WorkerSheet[] }
  | { ok: false; reason: 'too-large' | 'encrypted' | 'damaged'; message: string };
