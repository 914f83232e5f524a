/**
 * Text of a PDF, page by page, with pdf-parse v2 (pdf.js underneath). Every failure becomes a
 * `BW_ERR_DOCUMENT_UNREADABLE` whose message says why: encrypted, damaged, not a PDF, too large.
 */
import { InvalidPDFException, PasswordException, PDFParse } from 'pdf-parse';
import { BotwireError } from '../../shared/errors.ts';

/** The text of one page. */
export interface PageText {
  /** 1-based page number. */
  page: number;
  /** The page's text: lines joined by `\n`, as pdf.js lays them out. */
  text: string;
}

/** Limits for {@link extractPdf}. */
export interface PdfLimits {
  /** Most pages a PDF may have. @defaultValue 5000 */
  maxPages?: number;
  /** Wall-clock time for the whole extraction, in milliseconds. @defaultValue 120000 (2 min) */
  timeoutMs?: number;
}

export const PDF_DEFAULTS = { maxPages: 5000, timeoutMs: 120_000 } as const;

/** Why a document could not be read; rides in `BotwireError.details.reason`. */
export type UnreadableReason = 'encrypted' | 'damaged' | 'wrong-type' | 'too-large';

/** A `BW_ERR_DOCUMENT_UNREADABLE` with its reason in `details.reason`. */
export function unreadable(
  reason: UnreadableReason,
  message: string,
  cause?: unknown,
): BotwireError {
  return new BotwireError('BW_ERR_DOCUMENT_UNREADABLE', message, { cause, details: { reason } });
}

const HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"
/** How far into the file the header may start; pdf.js and Acrobat accept this much junk first. */
const HEADER_WINDOW = 1024;

/** Whether `bytes` carry a PDF header (`%PDF-`) within their first 1024 bytes. */
export function looksLikePdf(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, HEADER_WINDOW) - HEADER.length;
  for (let start = 0; start <= end; start += 1) {
    if (HEADER.every((byte, i) => bytes[start + i] === byte)) return true;
  }
  return false;
}

/**
 * Extracts the text of every page of a PDF.
 *
 * Encrypted PDFs: pdf.js opens a PDF whose user password is empty (one protected only by an owner
 * password, that is by permissions) and reads it normally; a PDF that needs a password to open
 * fails as "the PDF is encrypted". pdf.js runs on this thread in Node; the time limit is checked
 * between pages, so one pathological page can overrun it (the indexer is its own process).
 *
 * @param bytes - The file's content; not modified (pdf.js gets a copy).
 * @throws BotwireError `BW_ERR_DOCUMENT_UNREADABLE` with `details.reason` one of
 *   `wrong-type`, `encrypted`, `damaged`, `too-large`.
 */
export async function extractPdf(bytes: Uint8Array, limits: PdfLimits = {}): Promise<PageText[]> {
  const maxPages = limits.maxPages ?? PDF_DEFAULTS.maxPages;
  const timeoutMs = limits.timeoutMs ?? PDF_DEFAULTS.timeoutMs;
  if (!looksLikePdf(bytes)) throw unreadable('wrong-type', 'the file is not a PDF');

  const parser = new PDFParse({
    data: new Uint8Array(bytes),
    // Defence in depth against font programs: never compile them to JavaScript.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
  });
  const deadline = performance.now() + timeoutMs;
  const timedOut = (): BotwireError =>
    unreadable('too-large', `the PDF is too large (it could not be read within ${timeoutMs} ms)`);
  let timer: NodeJS.Timeout | undefined;
  const alarm = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), timeoutMs);
  });
  try {
    return await Promise.race([readPages(parser, maxPages, deadline, timedOut), alarm]);
  } catch (error) {
    throw classify(error);
  } finally {
    clearTimeout(timer);
    await parser.destroy().catch(() => undefined);
  }
}

/**
 * Reads page by page, checking the deadline and yielding to the event loop between pages: pdf.js
 * works in promise chains that starve timers, so a timer alone would fire only at the end.
 */
async function readPages(
  parser: PDFParse,
  maxPages: number,
  deadline: number,
  timedOut: () => BotwireError,
): Promise<PageText[]> {
  const { total } = await parser.getInfo();
  if (total > maxPages) {
    throw unreadable(
      'too-large',
      `the PDF is too large (${total} pages; the limit is ${maxPages})`,
    );
  }
  const pages: PageText[] = [];
  for (let page = 1; page <= total; page += 1) {
    if (performance.now() > deadline) throw timedOut();
    const result = await parser.getText({ partial: [page] });
    const text = result.pages[0]?.text ?? '';
    pages.push({ page, text: text.replace(/\r\n?/g, '\n') });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return pages;
}

function classify(error: unknown): BotwireError {
  if (error instanceof BotwireError) return error;
  if (error instanceof PasswordException) {
    return unreadable('encrypted', 'the PDF is encrypted (it needs a password to open)', error);
  }
  const detail = error instanceof Error ? error.message : String(error);
  const reason = error instanceof InvalidPDFException ? 'invalid PDF structure' : detail;
  return unreadable('damaged', `the PDF is damaged: ${reason.replace(/\.$/, '')}`, error);
}
