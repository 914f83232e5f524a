/**
 * The chunker: boundaries (paragraph, sentence, word), overlap, pages never crossed, rows kept
 * whole with their header names, source ranges, non-ASCII text.
 */
import { expect } from 'chai';
import {
  chunkPages,
  chunkSheets,
  SEGMENT_WINDOW,
  TRUNCATION_MARKER,
  type PageChunk,
} from '../src/indexer/chunk.ts';
import type { SheetRows } from '../src/indexer/extract/index.ts';

const sentence = (word: string, i: number): string => `${word}${i} says hello to the world.`;
const paragraph = (word: string, count: number): string =>
  Array.from({ length: count }, (_, i) => sentence(word, i)).join(' ');
const texts = (chunks: { text: string }[]): string[] => chunks.map((chunk) => chunk.text);

/** The longest start of `current` that `previous` ends with: the overlap. */
function overlapOf(previous: string, current: string): string {
  let shared = Math.max(0, Math.min(previous.length - 1, current.length));
  while (shared > 0 && !previous.endsWith(current.slice(0, shared))) shared -= 1;
  return current.slice(0, shared);
}

/** The chunks of one page with their overlap prefixes removed, joined back together. */
function withoutOverlap(chunks: PageChunk[]): string {
  let joined = '';
  for (const { text } of chunks) {
    const shared = overlapOf(joined, text).length;
    joined += (joined === '' || shared > 0 ? '' : ' ') + text.slice(shared);
  }
  return joined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('knowledge chunking', () => {
  describe('pages', () => {
    it('when paragraphs fit, then chunks break at blank lines and keep paragraphs whole', () => {
      const paragraphs = [paragraph('A', 3), paragraph('B', 3), paragraph('C', 3)];
      const chunks = chunkPages([{ page: 1, text: paragraphs.join('\n\n') }], {
        size: 200,
        overlap: 0,
      });
      expect(texts(chunks)).to.deep.equal([`${paragraphs[0]}\n\n${paragraphs[1]}`, paragraphs[2]]);
    });

    it('when a paragraph is longer than a chunk, then it is split between sentences', () => {
      const chunks = chunkPages([{ page: 1, text: paragraph('S', 30) }], { size: 150, overlap: 0 });
      expect(chunks.length).to.be.greaterThan(5);
      for (const { text } of chunks) {
        expect(text.length).to.be.at.most(150);
        expect(text).to.match(/^S\d+ says .*world\.$/);
      }
      expect(chunks.map((c) => c.text).join(' ')).to.equal(paragraph('S', 30));
    });

    it('when a sentence is longer than a chunk, then it is split between words, never inside one', () => {
      const words = Array.from({ length: 120 }, (_, i) => `word${i}`);
      const chunks = chunkPages([{ page: 1, text: `${words.join(' ')}.` }], {
        size: 100,
        overlap: 0,
      });
      expect(chunks.length).to.be.greaterThan(5);
      for (const { text } of chunks) {
        expect(text.length).to.be.at.most(100);
        for (const word of text.replace(/\.$/, '').split(' ')) expect(words).to.include(word);
      }
    });

    it("when chunks overlap, then each one starts with the previous one's tail, at a word boundary, within the overlap", () => {
      const chunks = chunkPages([{ page: 1, text: paragraph('O', 40) }], {
        size: 200,
        overlap: 60,
      });
      for (let i = 1; i < chunks.length; i += 1) {
        const previous = chunks[i - 1]?.text ?? '';
        const current = chunks[i]?.text ?? '';
        const tail = overlapOf(previous, current);
        expect(tail.length, `overlap of chunk ${i}`).to.be.within(1, 60);
        expect(tail).to.match(/^\S/);
        expect(previous.at(-tail.length - 1)).to.equal(' ');
        expect(current.length).to.be.at.most(200);
      }
      expect(withoutOverlap(chunks)).to.equal(paragraph('O', 40));
    });

    it('when a document has several pages, then no chunk crosses a page and overlap stays on its page', () => {
      const pages = [1, 2, 3].map((page) => ({ page, text: paragraph(`P${page}x`, 12) }));
      const chunks = chunkPages(pages, { size: 160, overlap: 50 });
      for (const { page } of pages) {
        const own = chunks.filter((chunk) => chunk.source.page === page);
        expect(own.length).to.be.greaterThan(1);
        for (const { text } of own) expect(text).to.not.match(new RegExp(`P(?!${page}x)\\d`));
        expect(withoutOverlap(own)).to.equal(pages[page - 1]?.text);
      }
      expect(chunks.map((chunk) => chunk.source.page)).to.deep.equal(
        [...chunks.map((c) => c.source.page)].sort(),
      );
    });

    it('when text has odd whitespace, control characters or blank pages, then it is normalised and empty chunks are dropped', () => {
      const pages = [
        { page: 1, text: '  Line one\nwraps\there.\r\n\r\n\u0000Second\u00a0 paragraph.  ' },
        { page: 2, text: ' \n\n \t ' },
      ];
      expect(chunkPages(pages)).to.deep.equal([
        { text: 'Line one wraps here.\n\nSecond paragraph.', source: { page: 1 } },
      ]);
    });

    it('when text is non-ASCII (accents, emoji, CJK), then chunks stay within size and never split a character', () => {
      const text = `${'Grüße 👩🏽‍💻 señor café. '.repeat(20)}\n\n${'漢字のテキストです。'.repeat(30)}\n\n${'😀'.repeat(200)}`;
      const chunks = chunkPages([{ page: 7, text }], { size: 120, overlap: 30 });
      for (const { text: chunk } of chunks) {
        expect(chunk.length).to.be.at.most(120);
        expect(chunk, JSON.stringify(chunk)).to.not.match(LONE_SURROGATE);
        expect(chunk).to.not.match(/^\u200d|\u200d$/);
      }
      expect(chunks.some((c) => c.text.includes('👩🏽‍💻'))).to.equal(true);
      expect(chunks.some((c) => c.text.includes('漢字のテキストです。漢字'))).to.equal(true);
      expect(chunks.some((c) => c.text.includes('😀😀😀'))).to.equal(true);
    });

    it('when the defaults are used, then chunks are at most 1200 characters', () => {
      const chunks = chunkPages([{ page: 1, text: paragraph('D', 200) }]);
      expect(Math.max(...chunks.map((c) => c.text.length))).to.be.within(1000, 1200);
    });

    describe('work grows linearly with the text', () => {
      const WORDS = ['alpha', 'beta', 'Grüße', 'café', 'über', 'naïve', '😀x'];
      const runOn = (chars: number): string => {
        let text = '';
        for (let i = 0; text.length < chars; i += 1) text += `${WORDS[i % WORDS.length]!}${i} `;
        return text.trimEnd();
      };
      /** Characters given to Intl.Segmenter in all, and the most in one call. */
      const meter = (
        text: string,
        overlap = 150,
      ): { total: number; most: number; chunks: PageChunk[] } => {
        let total = 0;
        let most = 0;
        const chunks = chunkPages([{ page: 1, text }], {
          overlap,
          onSegment: (chars) => {
            total += chars;
            most = Math.max(most, chars);
          },
        });
        return { total, most, chunks };
      };

      it('when a paragraph without sentence punctuation doubles in length, then the characters segmented double and no call gets more than the window', () => {
        const sizes = [50_000, 100_000, 200_000, 400_000];
        const runs = sizes.map((chars) => meter(runOn(chars)));
        for (let i = 1; i < runs.length; i += 1) {
          expect(runs[i]!.total / runs[i - 1]!.total).to.be.within(1.8, 2.2);
        }
        for (const run of runs) {
          expect(run.most).to.be.at.most(SEGMENT_WINDOW);
          expect(run.total).to.be.below(4 * 400_000);
        }
        const { chunks } = runs[0]!;
        expect(withoutOverlap(chunks)).to.equal(runOn(50_000));
        for (const { text } of chunks) expect(text.length).to.be.at.most(1200);
      });

      it('when text has no whitespace at all, then the work is linear too and no cut splits a character', () => {
        const glued = (chars: number): string => runOn(chars).replace(/ /g, '');
        const small = meter(glued(100_000), 0);
        const large = meter(glued(200_000), 0);
        expect(large.total / small.total).to.be.within(1.8, 2.2);
        expect(large.most).to.be.at.most(SEGMENT_WINDOW);
        expect(small.chunks.map((c) => c.text).join('')).to.equal(glued(100_000));
        for (const { text } of large.chunks) {
          expect(text.length).to.be.at.most(1200);
          expect(text).to.not.match(LONE_SURROGATE);
        }
      });
    });

    it('when options are out of range, then chunking refuses them', () => {
      expect(() => chunkPages([], { size: 100, overlap: 60 })).to.throw(RangeError);
      expect(() => chunkPages([], { size: 5 })).to.throw(RangeError);
      expect(() => chunkSheets([], { size: 100, overlap: 10, maxRowChars: 50 })).to.throw(
        RangeError,
      );
    });
  });

  describe('sheets', () => {
    const header = ['Name', 'Città', 'Notiz'];
    const sheet = (name: string, count: number, first = 2): SheetRows => ({
      sheet: name,
      header,
      rows: Array.from({ length: count }, (_, i) => ({
        row: first + i,
        cells: { Name: `Zoë ${String(i).padStart(2, '0')}`, Città: 'Köln' },
      })),
    });

    it('when rows are rendered, then each is one line of header: value pairs in header order, empty cells left out', () => {
      const rows = [{ row: 4, cells: { Notiz: 'a\nb', Name: 'Zoë', Città: ' ' } }];
      expect(chunkSheets([{ sheet: 'S', header, rows }])).to.deep.equal([
        { text: 'Name: Zoë; Notiz: a b', source: { sheet: 'S', rows: [4, 4] } },
      ]);
    });

    it('when rows fill chunks, then whole rows are grouped, with their row range and header names in every chunk', () => {
      // Each line is 25 characters: four lines and three line breaks make 103.
      const chunks = chunkSheets([sheet('Produkte', 20)], { size: 103, overlap: 0 });
      expect(chunks.map((c) => c.source.rows)).to.deep.equal([
        [2, 5],
        [6, 9],
        [10, 13],
        [14, 17],
        [18, 21],
      ]);
      for (const { text } of chunks) {
        expect(text.length).to.be.at.most(103);
        for (const line of text.split('\n')) expect(line).to.match(/^Name: Zoë \d\d; Città: Köln$/);
      }
    });

    it('when chunks overlap, then whole trailing rows of the previous chunk are repeated and counted in the range', () => {
      // Two rows with their line breaks take 52 characters.
      const chunks = chunkSheets([sheet('Produkte', 12)], { size: 104, overlap: 52 });
      expect(chunks.map((c) => c.source.rows)).to.deep.equal([
        [2, 5],
        [4, 7],
        [6, 9],
        [8, 11],
        [10, 13],
      ]);
      for (let i = 1; i < chunks.length; i += 1) {
        const previous = chunks[i - 1]?.text.split('\n') ?? [];
        const current = chunks[i]?.text.split('\n') ?? [];
        expect(current.slice(0, 2)).to.deep.equal(previous.slice(-2));
      }
    });

    it('when a row is longer than a chunk, then it is a chunk of its own, and cut with a marker above the hard maximum', () => {
      const long = (n: number): SheetRows['rows'][number] => ({
        row: n,
        cells: { Name: `R${n}`, Notiz: 'ü'.repeat(n === 3 ? 150 : 500) },
      });
      const rows = [
        { row: 2, cells: { Name: 'a' } },
        long(3),
        { row: 4, cells: { Name: 'b' } },
        long(5),
      ];
      const chunks = chunkSheets([{ sheet: 'S', header, rows }], {
        size: 100,
        overlap: 20,
        maxRowChars: 300,
      });
      expect(chunks.map((c) => c.source.rows)).to.deep.equal([
        [2, 2],
        [3, 3],
        [4, 4],
        [5, 5],
      ]);
      expect(chunks[1]?.text).to.equal(`Name: R3; Notiz: ${'ü'.repeat(150)}`);
      expect(chunks[3]?.text).to.have.length(300);
      expect(chunks[3]?.text.endsWith(TRUNCATION_MARKER)).to.equal(true);
    });

    it('when a row holds emoji beyond the hard maximum, then the cut never splits a character', () => {
      const rows = [{ row: 9, cells: { Name: '👩🏽‍💻'.repeat(200) } }];
      const [chunk] = chunkSheets([{ sheet: 'E', header, rows }], {
        size: 100,
        overlap: 0,
        maxRowChars: 203,
      });
      expect(chunk?.text).to.not.match(LONE_SURROGATE);
      expect(chunk?.text.replace(TRUNCATION_MARKER, '')).to.match(/^Name: (👩🏽‍💻)+$/u);
    });

    it('when there are several sheets, then no chunk mixes them and empty sheets give no chunk', () => {
      const empty: SheetRows = { sheet: 'Leer', header: [], rows: [] };
      const chunks = chunkSheets([sheet('Eins', 3), empty, sheet('Zwei', 3, 10)], { size: 1000 });
      expect(chunks.map((c) => c.source)).to.deep.equal([
        { sheet: 'Eins', rows: [2, 4] },
        { sheet: 'Zwei', rows: [10, 12] },
      ]);
    });
  });
});
