/**
 * One entry point for document extraction: picks the reader by file extension, checks that the
 * content looks like that type (magic bytes) before any parser sees it, and enforces the file size
 * limit. PDFs give pages of text; spreadsheets give sheets of rows.
 */
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { BotwireError } from '../../shared/errors.ts';
import type { DocumentExtension } from '../../shared/knowledge/names.ts';
import type { ChunkOptions, PageChunk } from '../chunk.ts';
import { extractPdf, extractPdfChunks, unreadable, type PageText, type PdfLimits } from './pdf.ts';
import {
  extractSpreadsheet,
  type SpreadsheetReader,
  type SheetRows,
  type SpreadsheetFormat,
  type SpreadsheetLimits,
} from './spreadsheet.ts';

export type { PageText, PdfLimits } from './pdf.ts';
export { isStopped, PDF_DEFAULTS } from './pdf.ts';
export type { SheetRow, SheetRows, SpreadsheetLimits } from './spreadsheet.ts';
export { SPREADSHEET_DEFAULTS, SpreadsheetReader } from './spreadsheet.ts';

/** What a document yields: pages of a PDF, or sheets of a spreadsheet. */
export type ExtractedDocument =
  { kind: 'pdf'; pages: PageText[] } | { kind: 'sheet'; sheets: SheetRows[] };

/** A file on disk, or its bytes with the name it was uploaded under (the extension matters). */
export type DocumentSource = { path: string } | { bytes: Uint8Array; filename: string };

/** Limits for {@link extractFile}. */
export interface ExtractLimits {
  /** Largest file accepted, in bytes. @defaultValue 52428800 (50 MiB) */
  maxFileBytes?: number;
  pdf?: PdfLimits;
  spreadsheet?: SpreadsheetLimits;
}

export const EXTRACT_DEFAULTS = { maxFileBytes: 50 * 1024 * 1024 } as const;

/** The reader each extension the indexer reads goes to (every one of `DOCUMENT_EXTENSIONS`). */
export const DOCUMENT_TYPES = {
  '.pdf': 'pdf',
  '.xlsx': 'xlsx',
  '.xls': 'xls',
  '.ods': 'ods',
  '.csv': 'csv',
} as const satisfies Record<DocumentExtension, 'pdf' | SpreadsheetFormat>;

type DocumentType = (typeof DOCUMENT_TYPES)[keyof typeof DOCUMENT_TYPES];

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

const startsWith = (bytes: Uint8Array, magic: number[]): boolean =>
  magic.every((byte, i) => bytes[i] === byte);

/**
 * Whether the content fits the spreadsheet format its name claims. SheetJS parses anything it does
 * not recognise as delimited text, so without this a binary file named `.xlsx` would be indexed as
 * garbage "cells". Encrypted xlsx files are OLE containers, so OLE is accepted for xlsx too.
 */
function fitsFormat(bytes: Uint8Array, format: SpreadsheetFormat): boolean {
  switch (format) {
    case 'xlsx':
      return startsWith(bytes, ZIP) || startsWith(bytes, OLE);
    case 'ods':
      return startsWith(bytes, ZIP);
    case 'xls': {
      // OLE (BIFF8), a bare BIFF2-5 stream, or the XML/HTML that many tools save as ".xls".
      const text = new TextDecoder().decode(bytes.subarray(0, 64)).replace(/^\uFEFF?\s*/, '');
      const biff = bytes[0] === 0x09 && (bytes[1] ?? 0xff) <= 0x08;
      return startsWith(bytes, OLE) || biff || text.startsWith('<');
    }
    case 'csv': {
      const head = bytes.subarray(0, 64 * 1024);
      return !head.includes(0) && !startsWith(bytes, ZIP) && !startsWith(bytes, OLE);
    }
  }
}

function typeOf(filename: string): DocumentType {
  const extension = extname(filename).toLowerCase();
  const type = (DOCUMENT_TYPES as Record<string, DocumentType | undefined>)[extension];
  if (type === undefined) {
    const what = extension === '' ? 'files without an extension' : `${extension} files`;
    throw new BotwireError(
      'BW_ERR_DOCUMENT_UNSUPPORTED',
      `${what} are not supported; the indexer reads ${Object.keys(DOCUMENT_TYPES).join(', ')}`,
      { details: { extension } },
    );
  }
  return type;
}

function tooLarge(size: number, max: number): BotwireError {
  return new BotwireError(
    'BW_ERR_DOCUMENT_TOO_LARGE',
    `the file is too large (${size} bytes; the limit is ${max})`,
    { details: { size, limit: max } },
  );
}

/** Reads a file, refusing it by its size before reading when it is over `max` bytes. */
async function readLimited(path: string, max: number): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new BotwireError('BW_ERR_NOT_FOUND', 'the file does not exist', {
        cause: error,
        details: { reason: 'missing' },
      });
    }
    throw new BotwireError('BW_ERR_INTERNAL', 'the file cannot be opened', { cause: error });
  }
  try {
    const { size } = await handle.stat();
    if (size > max) throw tooLarge(size, max);
    const bytes = await handle.readFile();
    // The file may have grown between stat and read.
    if (bytes.length > max) throw tooLarge(bytes.length, max);
    return bytes;
  } finally {
    await handle.close();
  }
}

/**
 * Extracts a document's text, dispatching on the file name's extension. Spreadsheets are read in
 * `sheets`'s worker when given (its limits apply), else in a worker thread of their own.
 *
 * @throws BotwireError `BW_ERR_DOCUMENT_UNSUPPORTED` for an extension not in
 *   {@link DOCUMENT_TYPES}; `BW_ERR_DOCUMENT_TOO_LARGE` over `maxFileBytes`; `BW_ERR_NOT_FOUND`
 *   for a missing file; `BW_ERR_DOCUMENT_UNREADABLE` when the content is not what its name says,
 *   is encrypted or damaged, or exceeds a reader's limits.
 */
export async function extractFile(
  source: DocumentSource,
  limits: ExtractLimits = {},
  sheets?: SpreadsheetReader,
): Promise<ExtractedDocument> {
  const { type, bytes } = await load(source, limits);
  if (type === 'pdf') return { kind: 'pdf', pages: await extractPdf(bytes, limits.pdf) };
  return sheetsOf(bytes, type, limits, sheets);
}

/** What {@link extractForIndex} yields: a PDF's page count and chunks, or a spreadsheet's sheets. */
export type IndexableDocument =
  { kind: 'pdf'; pages: number; chunks: PageChunk[] } | { kind: 'sheet'; sheets: SheetRows[] };

/**
 * {@link extractFile} for the indexer: a PDF is read and chunked in its worker thread, under the
 * PDF time and memory limits, so neither runs on the calling thread. `signal` stops a PDF's read
 * at once (its thread is terminated; see `isStopped`); a spreadsheet read is stopped by closing
 * `sheets`.
 *
 * @throws as {@link extractFile}.
 */
export async function extractForIndex(
  source: DocumentSource,
  limits: ExtractLimits,
  sheets: SpreadsheetReader,
  chunk: Pick<ChunkOptions, 'size' | 'overlap'>,
  signal?: AbortSignal,
): Promise<IndexableDocument> {
  const { type, bytes } = await load(source, limits);
  if (type === 'pdf') {
    return { kind: 'pdf', ...(await extractPdfChunks(bytes, limits.pdf ?? {}, chunk, signal)) };
  }
  return sheetsOf(bytes, type, limits, sheets);
}

/** The file's type by its name and its bytes, refused by size first. */
async function load(
  source: DocumentSource,
  limits: ExtractLimits,
): Promise<{ type: DocumentType; bytes: Uint8Array }> {
  const maxFileBytes = limits.maxFileBytes ?? EXTRACT_DEFAULTS.maxFileBytes;
  const type = typeOf('path' in source ? source.path : source.filename);
  if ('path' in source) return { type, bytes: await readLimited(source.path, maxFileBytes) };
  if (source.bytes.length > maxFileBytes) throw tooLarge(source.bytes.length, maxFileBytes);
  return { type, bytes: source.bytes };
}

async function sheetsOf(
  bytes: Uint8Array,
  type: SpreadsheetFormat,
  limits: ExtractLimits,
  sheets?: SpreadsheetReader,
): Promise<{ kind: 'sheet'; sheets: SheetRows[] }> {
  if (!fitsFormat(bytes, type)) {
    const what = type === 'csv' ? 'a text CSV file' : `an ${type.toUpperCase()} spreadsheet`;
    throw unreadable('wrong-type', `the file is not ${what}`);
  }
  return {
    kind: 'sheet',
    sheets: await extractSpreadsheet(bytes, type, limits.spreadsheet, sheets),
  };
}
