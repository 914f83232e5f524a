/**
 * Real documents for the knowledge tests, generated at test time: PDFs written by pdfkit, workbooks
 * written by SheetJS, and hand-zipped xlsx/ods files for the bombs (a zip whose directory can lie
 * about sizes, the smallest xlsx and ods SheetJS will read).
 */
import type { EmbeddingSettings } from '../../src/shared/embeddings/embedders.ts';
import { deflateSync, gzipSync } from 'node:zlib';
import PDFDocument from 'pdfkit';
import XLSX from 'xlsx';

export const MiB = 1024 * 1024;
export const PAGES = [
  'Grüße, señor, café. Erste Seite.',
  'Page two: naïve façade, “quotes”, €5.',
  'Último: ½ Preis.',
];

export function pdf(pages: string[], options: PDFKit.PDFDocumentOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument(options);
    const parts: Buffer[] = [];
    doc.on('data', (part: Buffer) => parts.push(part));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
    pages.forEach((text, i) => (i === 0 ? doc : doc.addPage()).font('Helvetica').text(text));
    doc.end();
  });
}

/** A zip of deflated entries; `declared` overrides an entry's stated uncompressed size (a liar). */
export function zip(
  entries: Record<string, string | Buffer>,
  declared: Record<string, number> = {},
): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, body] of Object.entries(entries)) {
    const data = Buffer.from(body);
    const gz = gzipSync(data, { level: 1 }); // gzip carries the raw deflate stream and its CRC-32
    const packed = gz.subarray(10, -8);
    const crc = gz.readUInt32LE(gz.length - 8);
    const file = Buffer.from(name);
    const head = (size: number, signature: number): Buffer => {
      const h = Buffer.alloc(size);
      h.writeUInt32LE(signature, 0);
      const at = size === 30 ? 4 : 6; // central headers carry "version made by" first
      h.writeUInt16LE(20, at);
      h.writeUInt16LE(8, at + 4);
      h.writeUInt32LE(crc, at + 10);
      h.writeUInt32LE(packed.length, at + 14);
      h.writeUInt32LE(declared[name] ?? data.length, at + 18);
      h.writeUInt16LE(file.length, at + 22);
      if (size === 46) h.writeUInt32LE(offset, 42);
      return h;
    };
    centrals.push(head(46, 0x02014b50), file);
    locals.push(head(30, 0x04034b50), file, packed);
    offset += 30 + file.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export const X = 'http://schemas.openxmlformats.org';
/** The smallest xlsx SheetJS reads: one sheet "Bomb" with the given worksheet XML. */
export function xlsx(sheet: string | Buffer, declared: Record<string, number> = {}): Buffer {
  const rel = (id: string, type: string, target: string): string =>
    `<Relationships xmlns="${X}/package/2006/relationships"><Relationship Id="${id}" Type="${X}/officeDocument/2006/relationships/${type}" Target="${target}"/></Relationships>`;
  return zip(
    {
      '[Content_Types].xml': `<Types xmlns="${X}/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
      '_rels/.rels': rel('rId1', 'officeDocument', 'xl/workbook.xml'),
      'xl/workbook.xml': `<workbook xmlns="${X}/spreadsheetml/2006/main" xmlns:r="${X}/officeDocument/2006/relationships"><sheets><sheet name="Bomb" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      'xl/_rels/workbook.xml.rels': rel('rId1', 'worksheet', 'worksheets/sheet1.xml'),
      'xl/worksheets/sheet1.xml': sheet,
    },
    declared,
  );
}
export const worksheet = (body: string): string =>
  `<worksheet xmlns="${X}/spreadsheetml/2006/main">${body}</worksheet>`;

/** An ods whose only table holds `rows` (table:table-row elements). */
export function ods(rows: string): Buffer {
  const ns = 'urn:oasis:names:tc:opendocument:xmlns';
  return zip({
    mimetype: 'application/vnd.oasis.opendocument.spreadsheet',
    'META-INF/manifest.xml': `<manifest:manifest xmlns:manifest="${ns}:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    'content.xml': `<office:document-content xmlns:office="${ns}:office:1.0" xmlns:table="${ns}:table:1.0" xmlns:text="${ns}:text:1.0"><office:body><office:spreadsheet><table:table table:name="Bomb">${rows}</table:table></office:spreadsheet></office:body></office:document-content>`,
  });
}

/** The workbook of the happy paths: two sheets, non-ASCII, a blank row, a repeated header. */
export function workbook(): XLSX.WorkBook {
  const book = XLSX.utils.book_new();
  const products = [
    [],
    ['Name', 'Città', 'Name', ''],
    ['Zoë', 'Köln', 1.5, 'x'],
    [],
    ['Ωmega', 'Zürich', 2],
  ];
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(products), 'Produkte');
  XLSX.utils.book_append_sheet(
    book,
    XLSX.utils.aoa_to_sheet([
      ['Straße', '__proto__'],
      ['Hauptstraße 1', 'p'],
    ]),
    'Straßen',
  );
  return book;
}
export const write = (bookType: 'xlsx' | 'xls' | 'ods' | 'csv'): Buffer =>
  XLSX.write(workbook(), { type: 'buffer', bookType }) as Buffer;

/**
 * A small hostile PDF: `pages` pages that all draw one shared, deflated content stream holding
 * `chars` characters of run-on words (no sentence punctuation), so a few KB of file give
 * pages × chars characters of text. Hand-written, with a correct cross-reference table.
 */
export function sharedStreamPdf(pages: number, chars: number): Buffer {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa'];
  // Lines of about 400 characters at 1 pt, each a hair below the one before: pdf.js keeps them on
  // the page and joins them into one run of text.
  const lines: string[] = [];
  for (let i = 0, length = 0; length < chars;) {
    let line = '';
    for (; line.length < 400; i += 1) line += `${words[i % words.length]!}${i % 97} `;
    lines.push(`(${line}) Tj 0 -0.01 Td`);
    length += line.length;
  }
  const content = deflateSync(Buffer.from(`BT /F1 1 Tf 10 700 Td ${lines.join(' ')} ET`));
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`).join(' ');
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
    Buffer.concat([
      Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`),
      content,
      Buffer.from('\nendstream'),
    ]),
    ...Array.from({ length: pages }, () =>
      Buffer.from(
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>',
      ),
    ),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((body, i) => {
    const object = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`),
      body,
      Buffer.from('\nendobj\n'),
    ]);
    offsets.push(at);
    parts.push(object);
    at += object.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`),
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`,
  ].join('');
  parts.push(Buffer.from(xref));
  return Buffer.concat(parts);
}

/** A bike shop's help pages; the question of each test shares no content word with its passage. */
export const SHOP_PAGES = [
  'Puncture repair: bring the wheel in and we patch or replace the inner tube while you wait.',
  'Payment: you may spread the price of any bicycle over 12 monthly instalments at no interest.',
  'Opening hours: Monday to Saturday from 9:00 to 18:00; closed on Sundays and public holidays.',
  'Rental: city bicycles and e-bikes by the day or the week, helmet and lock included.',
  'Spare part BW-4471-K is the brake lever for the Tandem Deluxe; order it at the counter.',
  'Saddle fitting: we measure your sit bones and adjust the seat height for free.',
  'Gift cards are sold in the shop in amounts from 10 to 500 euros and never expire.',
  'Delivery: bicycles bought online are shipped fully assembled within five working days.',
];

/**
 * Settings of a process that embeds with the embedded model only (no API): what the benches and tests
 * of meaning use.
 */
export const LOCAL_ONLY: EmbeddingSettings = {
  defaultChoice: 'local',
  apiUrl: '',
  apiKey: '',
  apiModel: '',
  apiDimensions: 0,
  apiTimeoutMs: 1000,
  apiBatch: 8,
  localBatch: 16,
};
