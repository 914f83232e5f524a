/**
 * Document extraction on real files generated at test time (test/support/knowledge-fixtures.ts):
 * PDFs written by pdfkit, spreadsheets by SheetJS, hand-zipped xlsx/ods bombs (see `bombs` below).
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import XLSX from 'xlsx';
import {
  extractFile,
  type DocumentSource,
  type ExtractLimits,
} from '../src/indexer/extract/index.ts';
import { SpreadsheetReader, toSheets } from '../src/indexer/extract/spreadsheet.ts';
import { BotwireError, type ErrorCode } from '../src/shared/errors.ts';
import { MiB, ods, PAGES, pdf, worksheet, write, xlsx } from './support/knowledge-fixtures.ts';

const run = promisify(execFile);

async function failure(source: DocumentSource, limits?: ExtractLimits): Promise<BotwireError> {
  try {
    await extractFile(source, limits);
  } catch (error) {
    if (error instanceof BotwireError) return error;
    throw error;
  }
  throw new Error('expected the extraction to fail');
}
function expectFailure(
  error: BotwireError,
  code: ErrorCode,
  reason: string | undefined,
  message: RegExp,
): void {
  expect(error.code).to.equal(code);
  expect(error.details?.reason).to.equal(reason);
  expect(error.message).to.match(message);
}

/** Runs `task` while sampling this process's RSS; returns the time taken and the RSS growth. */
async function measured(task: () => Promise<unknown>): Promise<{ ms: number; growthMiB: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const started = performance.now();
  try {
    await task();
  } catch {
    // the caller asserts on the failure separately
  } finally {
    clearInterval(sampler);
  }
  return { ms: performance.now() - started, growthMiB: (peak - base) / MiB };
}

describe('knowledge extraction', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'botwire-extract-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('PDF', () => {
    it('when a three-page PDF with Latin-1 text is read from disk, then each page comes back with its number and text', async () => {
      const path = join(dir, 'three.pdf');
      await writeFile(path, await pdf(PAGES));
      const result = await extractFile({ path });
      expect(result).to.deep.equal({
        kind: 'pdf',
        pages: PAGES.map((text, i) => ({ page: i + 1, text })),
      });
    });

    it('when the PDF needs a password to open, then it fails as encrypted', async () => {
      const bytes = await pdf(PAGES, { userPassword: 'secret' });
      const error = await failure({ bytes, filename: 'locked.pdf' });
      expectFailure(error, 'BW_ERR_DOCUMENT_UNREADABLE', 'encrypted', /^the PDF is encrypted/);
      expect(error.status).to.equal(422);
      expect(error.retryable).to.equal(false);
    });

    it('when the PDF has only an owner password (permissions), then pdf.js opens it and its text is read', async () => {
      const bytes = await pdf(PAGES, { ownerPassword: 'owner', permissions: { copying: false } });
      const result = await extractFile({ bytes, filename: 'restricted.pdf' });
      expect(result.kind === 'pdf' && result.pages.map((p) => p.text)).to.deep.equal(PAGES);
    });

    it('when the PDF is cut in half, then it fails as damaged', async () => {
      const whole = await pdf(PAGES);
      const error = await failure({
        bytes: whole.subarray(0, whole.length / 2),
        filename: 'cut.pdf',
      });
      expectFailure(
        error,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'damaged',
        /^the PDF is damaged: invalid PDF structure$/,
      );
    });

    it('when a file named .pdf is HTML or empty, then it fails as not a PDF', async () => {
      for (const content of ['<!doctype html><p>not a pdf</p>', '']) {
        const error = await failure({ bytes: Buffer.from(content), filename: 'page.PDF' });
        expectFailure(error, 'BW_ERR_DOCUMENT_UNREADABLE', 'wrong-type', /^the file is not a PDF$/);
      }
    });

    it('when a PDF cannot be read within the time limit, then its thread is stopped, it fails as too large, and the next PDF is read', async () => {
      const bytes = await pdf(
        Array.from({ length: 200 }, (_, i) => `Page ${i + 1}. ${'Text. '.repeat(200)}`),
      );
      const error = await extractFile(
        { bytes, filename: 'slow.pdf' },
        { pdf: { timeoutMs: 30 } },
      ).then(
        () => undefined,
        (e: unknown) => e as BotwireError,
      );
      expectFailure(
        error as BotwireError,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'too-large',
        /could not be read within 30 ms/,
      );
      const next = await extractFile({ bytes: await pdf(PAGES), filename: 'next.pdf' });
      expect(next.kind === 'pdf' && next.pages.length).to.equal(3);
    });

    it('when PDFs have been read, then JSON.parse in this thread is still strict (pdf.js and its polyfills live in the worker)', async () => {
      await extractFile({ bytes: await pdf(PAGES), filename: 'a.pdf' });
      // V8's own parser names the position "in JSON at position N"; core-js's polyfill, which
      // pdf.js's legacy build installs wherever it loads, words it differently.
      expect(() => JSON.parse('{"a":1,}', (_key, value: unknown) => value)).to.throw(
        /in JSON at position 7/,
      );
    });

    it('when a short-lived process has read PDFs, then it exits by itself (the idle thread kept for the next PDF does not hold it) with nothing on its stdout but its own', async function () {
      this.timeout(90_000);
      // Before the thread's stdout stopped being piped, this process never exited.
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', 'test/fixtures/read-pdfs.ts'],
        { timeout: 60_000, killSignal: 'SIGKILL' },
      );
      expect(stdout).to.equal('read\n');
    });

    it('when the PDF has more pages than the limit, then it fails as too large', async () => {
      const error = await failure(
        { bytes: await pdf(PAGES), filename: 'long.pdf' },
        { pdf: { maxPages: 2 } },
      );
      expectFailure(
        error,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'too-large',
        /^the PDF is too large \(3 pages; the limit is 2\)$/,
      );
    });
  });

  describe('spreadsheets', () => {
    const products = {
      sheet: 'Produkte',
      header: ['Name', 'Città', 'column_3', 'column_4'],
      rows: [
        { row: 3, cells: { Name: 'Zoë', Città: 'Köln', column_3: '1.5', column_4: 'x' } },
        { row: 5, cells: { Name: 'Ωmega', Città: 'Zürich', column_3: '2' } },
      ],
    };
    const streets = {
      sheet: 'Straßen',
      header: ['Straße', '__proto__'],
      rows: [{ row: 2, cells: JSON.parse('{"Straße":"Hauptstraße 1","__proto__":"p"}') }],
    };

    for (const format of ['xlsx', 'xls', 'ods'] as const) {
      it(`when a two-sheet ${format} with non-ASCII text is read, then every sheet comes back with its header names and sheet row numbers`, async () => {
        const path = join(dir, `book.${format}`);
        await writeFile(path, write(format));
        expect(await extractFile({ path })).to.deep.equal({
          kind: 'sheet',
          sheets: [products, streets],
        });
      });
    }

    it('when a header is named __proto__, then it stays a plain key and no prototype changes', async () => {
      const result = await extractFile({ bytes: write('xlsx'), filename: 'proto.xlsx' });
      const cells = result.kind === 'sheet' ? result.sheets[1]?.rows[0]?.cells : undefined;
      expect(Object.keys(cells ?? {})).to.deep.equal(['Straße', '__proto__']);
      expect(Object.getPrototypeOf(cells)).to.equal(Object.prototype);
      expect(({} as Record<string, unknown>).p).to.equal(undefined);
    });

    it('when a CSV is UTF-8 without a BOM, then its text and values come back verbatim', async () => {
      const bytes = Buffer.from('Name,Città,Code\nZoë,"Köln, DE",007\nΩ,1/2,\n');
      const result = await extractFile({ bytes, filename: 'plain.csv' });
      expect(result).to.deep.equal({
        kind: 'sheet',
        sheets: [
          {
            sheet: 'Sheet1',
            header: ['Name', 'Città', 'Code'],
            rows: [
              { row: 2, cells: { Name: 'Zoë', Città: 'Köln, DE', Code: '007' } },
              { row: 3, cells: { Name: 'Ω', Città: '1/2' } },
            ],
          },
        ],
      });
    });

    it('when a CSV is Windows-1252, then it is decoded as such', async () => {
      const bytes = Buffer.from([...Buffer.from('Name\n'), 0x5a, 0x6f, 0xeb, 0x0a]); // "Zoë" in 1252
      const result = await extractFile({ bytes, filename: 'legacy.csv' });
      expect(result.kind === 'sheet' && result.sheets[0]?.rows).to.deep.equal([
        { row: 2, cells: { Name: 'Zoë' } },
      ]);
    });

    it('when an xlsx is an encrypted OLE package, then it fails as encrypted', async () => {
      const CFB = XLSX.CFB as {
        utils: { cfb_new(): unknown; cfb_add(c: unknown, n: string, d: Buffer): void };
        write(c: unknown, o: object): Buffer;
      };
      const container = CFB.utils.cfb_new();
      CFB.utils.cfb_add(container, 'EncryptionInfo', Buffer.alloc(64));
      CFB.utils.cfb_add(container, 'EncryptedPackage', Buffer.alloc(4096));
      const error = await failure({
        bytes: CFB.write(container, { type: 'buffer' }),
        filename: 'locked.xlsx',
      });
      expectFailure(
        error,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'encrypted',
        /^the spreadsheet is encrypted/,
      );
    });

    it('when a file named .xlsx, .ods or .csv is not that type, then it fails before any parser sees it', async () => {
      const cases = [
        ['a.xlsx', 'Name,City\n', 'an XLSX spreadsheet'],
        ['a.ods', 'hello', 'an ODS spreadsheet'],
        ['a.csv', write('xlsx'), 'a text CSV file'],
      ] as const;
      for (const [filename, content, what] of cases) {
        const error = await failure({ bytes: Buffer.from(content), filename });
        expectFailure(
          error,
          'BW_ERR_DOCUMENT_UNREADABLE',
          'wrong-type',
          new RegExp(`^the file is not ${what}$`),
        );
      }
    });

    it('when a sheet declares the whole grid (A1:XFD1048576) but holds two cells, then only those cells come back, quickly', async () => {
      const cell = (ref: string, text: string): string =>
        `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
      const bytes = xlsx(
        worksheet(
          `<dimension ref="A1:XFD1048576"/><sheetData><row r="1">${cell('A1', 'Head')}</row><row r="1048576">${cell('XFD1048576', 'far')}</row></sheetData>`,
        ),
      );
      const { sheets } = (await extractFile({ bytes, filename: 'grid.xlsx' })) as {
        sheets: unknown[];
      };
      expect(sheets).to.have.length(1);
      const [sheet] = sheets as { header: string[]; rows: unknown[] }[];
      expect(sheet?.header).to.have.length(16384);
      expect(sheet?.rows).to.deep.equal([{ row: 1048576, cells: { column_16384: 'far' } }]);
    });

    it("when an xlsx is truncated, then it fails as damaged with SheetJS's reason", async () => {
      const whole = write('xlsx');
      const error = await failure({
        bytes: whole.subarray(0, whole.length / 2),
        filename: 'cut.xlsx',
      });
      expectFailure(
        error,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'damaged',
        /^the spreadsheet is damaged: .+/,
      );
    });

    it('when the cells or sheets exceed their limits, then it fails as too large', async () => {
      let error = await failure(
        { bytes: write('xlsx'), filename: 'a.xlsx' },
        { spreadsheet: { maxCells: 5 } },
      );
      expectFailure(
        error,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'too-large',
        /^the spreadsheet is too large \(more than 5 cells\)$/,
      );
      error = await failure(
        { bytes: write('xlsx'), filename: 'a.xlsx' },
        { spreadsheet: { maxSheets: 1 } },
      );
      expectFailure(
        error,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'too-large',
        /^the spreadsheet is too large \(2 sheets; the limit is 1\)$/,
      );
    });
  });

  // What the spreadsheet worker posts back is untrusted (SheetJS may have been subverted inside it).
  describe("the worker's reply", () => {
    const limits = { maxCells: 100, maxSheets: 5 };
    const reply = (sheet: Record<string, unknown>) => ({
      ok: true,
      sheets: [
        {
          name: 'S',
          header: ['a', '__proto__'],
          rows: Int32Array.of(2, 4),
          ends: Int32Array.of(2, 3),
          columns: Int32Array.of(0, 1, 1),
          texts: ['x', 'y', 'z'],
          ...sheet,
        },
      ],
    });

    it('when the reply is well formed, then rows come back by header name, "__proto__" an ordinary key', () => {
      const [sheet] = toSheets(reply({}), limits);
      expect(sheet?.rows.map((row) => row.row)).to.deep.equal([2, 4]);
      expect(Object.entries(sheet?.rows[0]?.cells ?? {})).to.deep.equal([
        ['a', 'x'],
        ['__proto__', 'y'],
      ]);
      expect(Object.getPrototypeOf(sheet?.rows[0]?.cells)).to.equal(Object.prototype);
      expect(Object.entries(sheet?.rows[1]?.cells ?? {})).to.deep.equal([['__proto__', 'z']]);
    });

    it('when a list has a hole, a column is outside the header, or the index lists disagree, then it is refused as malformed', () => {
      const holey: string[] = []; // a hole at 1
      holey[0] = 'x';
      holey[2] = 'z';
      const headerHole: string[] = []; // a hole at 0
      headerHole[1] = 'b';
      const bad: Record<string, unknown>[] = [
        { texts: holey },
        { header: headerHole },
        { columns: Int32Array.of(0, 2, 1) },
        { columns: Int32Array.of(0, -1, 1) },
        { ends: Int32Array.of(2, 4) },
        { ends: Int32Array.of(2, 1) },
        { ends: Int32Array.of(1, 2) },
        { rows: Int32Array.of(0, 4) },
        { rows: [2, 4] },
        { header: ['a', 'a'] },
      ];
      for (const fields of bad) {
        let error: unknown;
        try {
          toSheets(reply(fields), limits);
        } catch (e) {
          error = e;
        }
        expect(error, JSON.stringify(Object.keys(fields))).to.be.instanceOf(BotwireError);
        expect((error as BotwireError).code).to.equal('BW_ERR_INTERNAL');
      }
    });
  });

  describe('one reader for several files', () => {
    it('when a read times out, then the worker is replaced and the next file is read; once closed, reads fail', async () => {
      const reader = new SpreadsheetReader({ timeoutMs: 1500 });
      const bomb = ods(
        '<table:table-row table:number-rows-repeated="1000000"><table:table-cell office:value-type="string" table:number-columns-repeated="1000"><text:p>boom</text:p></table:table-cell></table:table-row>',
      );
      try {
        const first = await reader.read(write('xlsx'), 'xlsx');
        expect(first.map((sheet) => sheet.sheet)).to.have.length.above(0);
        let error: unknown;
        await reader.read(bomb, 'ods').catch((e: unknown) => (error = e));
        expect((error as BotwireError).code).to.equal('BW_ERR_DOCUMENT_UNREADABLE');
        expect((error as BotwireError).details).to.include({ reason: 'too-large' });
        // After the replacement the reader gives what a worker of the file's own gives.
        const alone = await extractFile({ bytes: write('csv'), filename: 'a.csv' });
        const sheets = await reader.read(write('csv'), 'csv');
        expect({ kind: 'sheet', sheets }).to.deep.equal(alone);
      } finally {
        await reader.close();
      }
      let closed: unknown;
      await reader.read(write('csv'), 'csv').catch((e: unknown) => (closed = e));
      expect((closed as BotwireError).code).to.equal('BW_ERR_INTERNAL');
    });
  });

  // The bombs. (1) xlsx zip bomb: 300 MiB of repetitive sheet XML deflated into ~2.5 MiB, once with
  // honest sizes in the zip directory and once declaring 1 KiB (a liar). (2) ods repeat bomb:
  // under 1 KiB, one cell repeated 1,000 times across and 1,000,000 rows down: 10^9 cells.
  describe('bombs', () => {
    const row =
      '<row><c t="inlineStr"><is><t>bomb</t></is></c><c t="inlineStr"><is><t>bomb</t></is></c></row>';
    let honest: Buffer;
    let liar: Buffer;
    const repeatBomb = ods(
      '<table:table-row table:number-rows-repeated="1000000"><table:table-cell office:value-type="string" table:number-columns-repeated="1000"><text:p>boom</text:p></table:table-cell></table:table-row>',
    );
    before(function () {
      this.timeout(60_000);
      const sheet = Buffer.concat([
        Buffer.from(worksheet('<sheetData>').replace('</worksheet>', '')),
        Buffer.alloc(300 * MiB, row),
        Buffer.from('</sheetData></worksheet>'),
      ]);
      honest = xlsx(sheet);
      liar = xlsx(sheet, { 'xl/worksheets/sheet1.xml': 1024 });
    });

    it('when an xlsx zip bomb states its size honestly, then it fails as too large before anything is inflated', async () => {
      expect(honest.length).to.be.below(3 * MiB);
      const error = await failure({ bytes: honest, filename: 'bomb.xlsx' });
      expectFailure(
        error,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'too-large',
        /^the spreadsheet is too large \(it unpacks to \d+ bytes; the limit is 268435456\)$/,
      );
    });

    it('when an xlsx zip bomb lies about its size, then inflating stops at the unpack limit', async () => {
      let error: BotwireError | undefined;
      const { ms, growthMiB } = await measured(
        async () => (error = await failure({ bytes: liar, filename: 'liar.xlsx' })),
      );
      expectFailure(
        error!,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'too-large',
        /^the spreadsheet is too large \(it unpacks to more than 268435456 bytes\)$/,
      );
      expect(ms).to.be.below(30_000);
      expect(growthMiB, 'RSS growth, MiB').to.be.below(256 + 512);
    });

    it('when an ods repeats one cell 10^9 times, then the worker hits its memory cap and the caller gets too large', async () => {
      let error: BotwireError | undefined;
      const limits = { spreadsheet: { maxMemoryMb: 64 } };
      const { ms, growthMiB } = await measured(
        async () => (error = await failure({ bytes: repeatBomb, filename: 'bomb.ods' }, limits)),
      );
      expect(repeatBomb.length).to.be.below(1024);
      expectFailure(
        error!,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'too-large',
        /^the spreadsheet is too large \(reading it needs more than 64 MiB of memory\)$/,
      );
      expect(ms).to.be.below(30_000);
      expect(growthMiB, 'RSS growth, MiB').to.be.below(64 + 256);
    });

    it('when the ods bomb is given memory but not time, then the worker is terminated at the timeout', async () => {
      let error: BotwireError | undefined;
      const limits = { spreadsheet: { maxMemoryMb: 1024, timeoutMs: 1500 } };
      const { ms } = await measured(
        async () => (error = await failure({ bytes: repeatBomb, filename: 'bomb.ods' }, limits)),
      );
      expectFailure(
        error!,
        'BW_ERR_DOCUMENT_UNREADABLE',
        'too-large',
        /^the spreadsheet is too large \(it could not be read within 1500 ms\)$/,
      );
      expect(ms).to.be.within(1500, 4000);
    });

    it('when the bombs have gone off, then this process still reads a spreadsheet', async () => {
      const result = await extractFile({ bytes: write('ods'), filename: 'after.ods' });
      expect(result.kind === 'sheet' && result.sheets.map((s) => s.sheet)).to.deep.equal([
        'Produkte',
        'Straßen',
      ]);
    });
  });

  describe('files', () => {
    it('when a file is over the size limit, then it fails as too large without being read', async () => {
      const path = join(dir, 'big.csv');
      await writeFile(path, Buffer.alloc(2048, 'a'));
      for (const source of [{ path }, { bytes: Buffer.alloc(2048), filename: 'big.pdf' }]) {
        const error = await failure(source, { maxFileBytes: 1024 });
        expect(error.code).to.equal('BW_ERR_DOCUMENT_TOO_LARGE');
        expect(error.message).to.equal('the file is too large (2048 bytes; the limit is 1024)');
        expect([error.status, error.retryable]).to.deep.equal([413, false]);
      }
    });

    it('when a file does not exist, then it fails as not found', async () => {
      const error = await failure({ path: join(dir, 'missing.pdf') });
      expectFailure(error, 'BW_ERR_NOT_FOUND', 'missing', /^the file does not exist$/);
    });

    it('when the extension is not one the indexer reads, then it fails as unsupported', async () => {
      const cases = [
        ['notes.docx', '.docx files'],
        ['README', 'files without an extension'],
      ] as const;
      for (const [filename, what] of cases) {
        const error = await failure({ bytes: Buffer.from('text'), filename });
        expect(error.code).to.equal('BW_ERR_DOCUMENT_UNSUPPORTED');
        expect(error.message).to.equal(
          `${what} are not supported; the indexer reads .pdf, .xlsx, .xls, .ods, .csv`,
        );
        expect([error.status, error.retryable]).to.deep.equal([415, false]);
      }
    });
  });
});
