/**
 * The bench's documents, written into a folder: PDFs (pdfkit, Helvetica, 10 pt, a few paragraphs
 * per page) and spreadsheets (SheetJS-written xlsx with several sheets, and csv), all with text
 * from `text.ts`. Rows are orders, returns and stock lines: a few columns with header names,
 * numbers, dates, non-ASCII names and a free-text note.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import XLSX from 'xlsx';
import { fragment, paragraph, pick, type Random, type TextModel } from './text.ts';

/** What was written: file names, and the pages or data rows they hold. */
export interface Corpus {
  files: string[];
  /** PDF pages, or spreadsheet data rows (header rows not counted), over all files. */
  units: number;
  bytes: number;
}

/** The paragraphs of one page: 3 to 5, about 2,000 to 2,800 characters in all. */
export function pageText(model: TextModel, random: Random): string[] {
  const count = 3 + Math.floor(random() * 3);
  return Array.from({ length: count }, () => paragraph(model, random, 350, 560));
}

function pdfOf(pages: string[][]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 56, autoFirstPage: false });
    const parts: Buffer[] = [];
    doc.on('data', (part: Buffer) => parts.push(part));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
    doc.font('Helvetica').fontSize(10);
    for (const paragraphs of pages) {
      doc.addPage();
      for (const text of paragraphs) doc.text(text, { paragraphGap: 8 });
    }
    doc.end();
  });
}

/** Writes `files` PDFs with `pages` pages in all into `dir`. */
export async function writePdfs(
  dir: string,
  model: TextModel,
  random: Random,
  pages: number,
  files: number,
): Promise<Corpus> {
  const corpus: Corpus = { files: [], units: 0, bytes: 0 };
  for (let f = 0; f < files; f += 1) {
    const count = Math.floor(pages / files) + (f < pages % files ? 1 : 0);
    const bytes = await pdfOf(Array.from({ length: count }, () => pageText(model, random)));
    const name = `manual-${f + 1}.pdf`;
    await writeFile(join(dir, name), bytes);
    corpus.files.push(name);
    corpus.units += count;
    corpus.bytes += bytes.length;
  }
  return corpus;
}

const CUSTOMERS = ['Zoë Müller', 'José Peña', 'Ana Lima', 'Björn Ås', 'Chloé Dubois', 'Sam Lee'];
const CITIES = ['Köln', 'Zürich', 'Málaga', 'São Paulo', 'Genève', 'Lyon', 'Leeds', 'Ōsaka'];

export const HEADER = [
  'Order ID',
  'Date',
  'Customer',
  'City',
  'Product',
  'Quantity',
  'Unit price',
  'Notes',
];

/** One data row: numbers stay numbers in xlsx; the note is 3 to 12 words of prose. */
export function sheetRow(model: TextModel, random: Random, id: number): (string | number)[] {
  const day = 1 + Math.floor(random() * 28);
  const month = 1 + Math.floor(random() * 12);
  return [
    `ORD-${String(id).padStart(7, '0')}`,
    `2025-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    pick(random, CUSTOMERS),
    pick(random, CITIES),
    fragment(model, random, 2, 4),
    1 + Math.floor(random() * 40),
    Math.round(random() * 50_000) / 100,
    fragment(model, random, 3, 12),
  ];
}

const SHEET_NAMES = ['Orders', 'Returns', 'Stock', 'Archive'];

/**
 * Writes spreadsheets holding `rows` data rows in all into `dir`: `xlsxFiles` workbooks of
 * `sheets` sheets each, and `csvFiles` csv files, each file taking an equal share of the rows.
 */
export async function writeSheets(
  dir: string,
  model: TextModel,
  random: Random,
  options: { rows: number; xlsxFiles: number; csvFiles: number; sheets: number },
): Promise<Corpus> {
  const corpus: Corpus = { files: [], units: 0, bytes: 0 };
  const total = options.xlsxFiles + options.csvFiles;
  let id = 0;
  for (let f = 0; f < total; f += 1) {
    const count = Math.floor(options.rows / total) + (f < options.rows % total ? 1 : 0);
    const csv = f >= options.xlsxFiles;
    const sheets = csv ? 1 : options.sheets;
    const book = XLSX.utils.book_new();
    for (let s = 0; s < sheets; s += 1) {
      const share = Math.floor(count / sheets) + (s < count % sheets ? 1 : 0);
      const data = [HEADER, ...Array.from({ length: share }, () => sheetRow(model, random, ++id))];
      XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(data), SHEET_NAMES[s] ?? `S${s}`);
    }
    const name = csv ? `orders-${f + 1}.csv` : `orders-${f + 1}.xlsx`;
    const bytes = XLSX.write(book, { type: 'buffer', bookType: csv ? 'csv' : 'xlsx' }) as Buffer;
    await writeFile(join(dir, name), bytes);
    corpus.files.push(name);
    corpus.units += count;
    corpus.bytes += bytes.length;
  }
  return corpus;
}
