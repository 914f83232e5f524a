/**
 * Text of a PDF, page by page, with pdf-parse v2 (pdf.js underneath) in a worker thread. Every
 * failure becomes a `BW_ERR_DOCUMENT_UNREADABLE` whose message says why: encrypted, damaged, not a
 * PDF, too large.
 */
import { Worker } from 'node:worker_threads';
import { BotwireError } from '../../shared/errors.ts';
import { workerBootstrap } from '../../shared/worker-thread.ts';

/** The text of one page. */
export interface PageText {
  /** 1-based page number. */
  page: number;
  /** The page's text: lines joined by `\n`, as pdf.js lays them out. */
  text: string;
}

/** How the thread chunks pages (`ChunkOptions` of `../chunk.ts`, which imports this module). */
export interface PdfChunking {
  /** Most characters in a chunk. @defaultValue 1200 */
  size?: number;
  /** Characters repeated from the previous chunk. @defaultValue 150 */
  overlap?: number;
}

/** A chunk of one page (`PageChunk` of `../chunk.ts`). */
export interface PdfChunk {
  text: string;
  source: { page: number };
}

/** Limits for {@link extractPdf}. */
export interface PdfLimits {
  /** Most pages a PDF may have. @defaultValue 5000 */
  maxPages?: number;
  /** Wall-clock time for the whole extraction, in milliseconds. @defaultValue 120000 (2 min) */
  timeoutMs?: number;
  /** The worker's V8 old-generation heap cap, in MiB. @defaultValue 1024 */
  maxMemoryMb?: number;
}

export const PDF_DEFAULTS = { maxPages: 5000, timeoutMs: 120_000, maxMemoryMb: 1024 } as const;

const BOOTSTRAP = workerBootstrap(new URL('./pdf-worker.ts', import.meta.url));

/** What the caller posts to the PDF worker for one file. */
export interface PdfInput {
  bytes: Uint8Array;
  maxPages: number;
  timeoutMs: number;
  /** When set, the thread also chunks the pages and sends chunks instead of the pages' text. */
  chunk?: PdfChunking;
}

/** What the PDF worker posts back (`chunks` when the input asked for them; `pages` then hold ''). */
export type PdfReply =
  | { ok: true; pages: PageText[]; chunks?: PdfChunk[] }
  | { ok: false; reason: 'encrypted' | 'damaged' | 'too-large'; message: string };

export const pdfTooLarge = (detail: string): PdfReply => ({
  ok: false,
  reason: 'too-large',
  message: `the PDF is too large (${detail})`,
});

export const pdfTimedOut = (timeoutMs: number): PdfReply =>
  pdfTooLarge(`it could not be read within ${timeoutMs} ms`);

/** Why a document could not be read; rides in `BotwireError.details.reason`. */
export type UnreadableReason = 'encrypted' | 'damaged' | 'wrong-type' | 'too-large' | 'no-text';

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

/** Idle PDF threads kept for the next file, by heap cap. */
const idle: { worker: Worker; maxMemoryMb: number }[] = [];
const MAX_IDLE = 2;

function acquire(maxMemoryMb: number): Worker {
  const found = idle.findIndex((entry) => entry.maxMemoryMb === maxMemoryMb);
  if (found >= 0) {
    const [entry] = idle.splice(found, 1);
    if (entry) {
      entry.worker.ref();
      return entry.worker;
    }
  }
  // The thread's stdout and stderr are not piped here: Node holds a thread's port while its piped
  // stdout is read, until the thread exits, so an idle thread kept for the next PDF would keep the
  // process alive. pdf.js's console warnings are silenced in the thread instead (pdf-worker.ts).
  return new Worker(BOOTSTRAP, {
    eval: true,
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb },
  });
}

function release(worker: Worker, maxMemoryMb: number): void {
  if (idle.length >= MAX_IDLE) {
    void worker.terminate();
    return;
  }
  worker.unref(); // an idle thread must not keep the process alive
  idle.push({ worker, maxMemoryMb });
}

/**
 * Asks `worker` to read one PDF; settles on its reply, its death, or the timeout. `reusable` says
 * whether the thread may read another file (not after a timeout or running out of memory).
 */
function ask(
  worker: Worker,
  input: PdfInput,
  limits: Required<PdfLimits>,
  signal?: AbortSignal,
): Promise<{ reply: PdfReply; reusable: boolean }> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      done();
      reject(stopped());
    };
    const done = (): void => {
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (reply: PdfReply): void => {
      done();
      resolve({ reply, reusable: true });
    };
    const onError = (error: Error & { code?: string }): void => {
      done();
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        const detail = `reading it needs more than ${limits.maxMemoryMb} MiB of memory`;
        resolve({ reply: pdfTooLarge(detail), reusable: false });
      } else {
        reject(new BotwireError('BW_ERR_INTERNAL', 'the PDF worker failed', { cause: error }));
      }
    };
    const onExit = (code: number): void => {
      done();
      reject(new BotwireError('BW_ERR_INTERNAL', `the PDF worker exited (${code})`));
    };
    const timer = setTimeout(() => {
      done();
      resolve({ reply: pdfTimedOut(limits.timeoutMs), reusable: false });
    }, limits.timeoutMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort);
    worker.postMessage(input, [input.bytes.buffer as ArrayBuffer]);
  });
}

/**
 * Extracts the text of every page of a PDF, in a worker thread (pdf.js never runs on the calling
 * thread; see `pdf-worker.ts`).
 *
 * Encrypted PDFs: pdf.js opens a PDF whose user password is empty (one protected only by an owner
 * password, that is by permissions) and reads it normally; a PDF that needs a password to open
 * fails as "the PDF is encrypted". The time limit is enforced by terminating the thread, so even a
 * page that never finishes cannot overrun it; the heap is capped with `resourceLimits`.
 *
 * @param bytes - The file's content; not modified (the worker gets a copy).
 * @throws BotwireError `BW_ERR_DOCUMENT_UNREADABLE` with `details.reason` one of
 *   `wrong-type`, `encrypted`, `damaged`, `too-large`; `BW_ERR_INTERNAL` when the thread itself
 *   fails (it could not start, or died without an answer), which is worth a retry.
 */
export async function extractPdf(bytes: Uint8Array, limits: PdfLimits = {}): Promise<PageText[]> {
  const reply = await run(bytes, limits);
  return reply.pages;
}

/**
 * Reads a PDF and chunks its pages, both in the worker thread, under the same time and memory
 * limits (the chunker is linear, but a few KB of PDF can hold tens of MB of text; see
 * docs/knowledge.md). Returns the page count and the chunks. `signal` aborts the read at once: the
 * thread is terminated and the promise rejects with `BW_ERR_INTERNAL`, `details.reason` `stopped`.
 *
 * @throws as {@link extractPdf}, and as above when aborted.
 */
export async function extractPdfChunks(
  bytes: Uint8Array,
  limits: PdfLimits,
  chunk: PdfChunking,
  signal?: AbortSignal,
): Promise<{ pages: number; chunks: PdfChunk[] }> {
  const reply = await run(bytes, limits, chunk, signal);
  const chunks: unknown = reply.chunks;
  const wellFormed =
    Array.isArray(chunks) &&
    chunks.every(
      (c: { text?: unknown; source?: { page?: unknown } }) =>
        typeof c.text === 'string' && typeof c.source?.page === 'number',
    );
  if (!wellFormed) throw malformed();
  return { pages: reply.pages.length, chunks: reply.chunks ?? [] };
}

/** Whether an error is the one an aborted read rejects with. */
export function isStopped(error: unknown): boolean {
  return (
    error instanceof BotwireError &&
    (error.details as { reason?: unknown } | undefined)?.reason === 'stopped'
  );
}

function stopped(): BotwireError {
  return new BotwireError('BW_ERR_INTERNAL', 'the read was stopped: the indexer is closing', {
    details: { reason: 'stopped' },
  });
}

function malformed(): BotwireError {
  return new BotwireError('BW_ERR_INTERNAL', 'the PDF worker sent a malformed reply');
}

async function run(
  bytes: Uint8Array,
  limits: PdfLimits,
  chunk?: PdfInput['chunk'],
  signal?: AbortSignal,
): Promise<PdfReply & { ok: true }> {
  const settings = { ...PDF_DEFAULTS, ...limits };
  if (!looksLikePdf(bytes)) throw unreadable('wrong-type', 'the file is not a PDF');
  if (signal?.aborted) throw stopped();
  const worker = acquire(settings.maxMemoryMb);
  const input: PdfInput = {
    bytes: new Uint8Array(bytes),
    maxPages: settings.maxPages,
    timeoutMs: settings.timeoutMs,
    ...(chunk ? { chunk } : {}),
  };
  const { reply, reusable } = await ask(worker, input, settings, signal).catch((error: unknown) => {
    void worker.terminate();
    throw error;
  });
  if (reusable) release(worker, settings.maxMemoryMb);
  else void worker.terminate();
  if (!reply.ok) throw unreadable(reply.reason, reply.message);
  const pages: unknown = reply.pages;
  const wellFormed =
    Array.isArray(pages) &&
    pages.every(
      (p: { page?: unknown; text?: unknown }) =>
        typeof p.page === 'number' && typeof p.text === 'string',
    );
  if (!wellFormed) throw malformed();
  return reply;
}
