/**
 * The inside of the PDF worker thread started by `pdf.ts`: reads PDFs with pdf-parse (pdf.js), one
 * at a time, page by page, and posts back plain data. pdf.js lives only in this thread: the core-js
 * polyfills its legacy build installs (among them a lenient `JSON.parse` with a reviver) stay in
 * this thread's realm, and a page that never finishes is stopped by the caller terminating the
 * thread. The thread is kept for the next PDF when a read ends normally.
 */
import { isMainThread, parentPort } from 'node:worker_threads';
import { InvalidPDFException, PasswordException, PDFParse } from 'pdf-parse';
import { chunkPages } from '../chunk.ts';
import { pdfTimedOut, pdfTooLarge, type PdfInput, type PdfReply } from './pdf.ts';

/**
 * Reads page by page, checking the deadline and yielding to the event loop between pages: pdf.js
 * works in promise chains that starve timers.
 */
async function readPages(parser: PDFParse, input: PdfInput, deadline: number): Promise<PdfReply> {
  const { total } = await parser.getInfo();
  if (total > input.maxPages) {
    return pdfTooLarge(`${total} pages; the limit is ${input.maxPages}`);
  }
  const pages: { page: number; text: string }[] = [];
  for (let page = 1; page <= total; page += 1) {
    if (performance.now() > deadline) return pdfTimedOut(input.timeoutMs);
    const result = await parser.getText({ partial: [page] });
    const text = result.pages[0]?.text ?? '';
    pages.push({ page, text: text.replace(/\r\n?/g, '\n') });
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!input.chunk) return { ok: true, pages };
  // Chunked here, in this thread, under the caller's time limit: the text of a few KB of PDF can
  // be tens of MB, and the main thread must stay free to renew job locks and stop on time.
  const chunks = chunkPages(pages, input.chunk);
  return { ok: true, pages: pages.map(({ page }) => ({ page, text: '' })), chunks };
}

function classify(error: unknown): PdfReply {
  if (error instanceof PasswordException) {
    return {
      ok: false,
      reason: 'encrypted',
      message: 'the PDF is encrypted (it needs a password to open)',
    };
  }
  const detail = error instanceof Error ? error.message : String(error);
  const reason = error instanceof InvalidPDFException ? 'invalid PDF structure' : detail;
  return {
    ok: false,
    reason: 'damaged',
    message: `the PDF is damaged: ${reason.replace(/\.$/, '').slice(0, 200)}`,
  };
}

export async function readPdf(input: PdfInput): Promise<PdfReply> {
  const deadline = performance.now() + input.timeoutMs;
  const parser = new PDFParse({
    data: input.bytes,
    // Defence in depth against font programs: never compile them to JavaScript.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
  });
  try {
    return await readPages(parser, input, deadline);
  } catch (error) {
    return classify(error);
  } finally {
    await parser.destroy().catch(() => undefined);
  }
}

if (!isMainThread && parentPort) {
  // pdf.js warns on the console about fonts and broken objects. A thread's console writes to the
  // process's stdout, where our JSON log goes: those lines are not our log.
  for (const method of ['log', 'info', 'warn', 'debug'] as const) {
    // eslint-disable-next-line no-console -- silencing the console, not writing to it
    console[method] = () => {};
  }
  const port = parentPort;
  port.on('message', (input: PdfInput) => {
    void readPdf(input).then((reply) => port.postMessage(reply));
  });
}
