/**
 * Splits extracted text into overlapping chunks for search. Pure functions, no I/O.
 *
 * Pages: paragraphs (blank lines) are kept whole when they fit; a longer paragraph is split into
 * sentences, a longer sentence into words, a longer word into characters (graphemes, so never
 * inside a surrogate pair or before a combining mark). A chunk never spans two pages.
 *
 * Sheets: one row per line, `header: value; header: value` (empty cells left out), whole rows per
 * chunk, never split; a row longer than `size` is a chunk of its own, cut at `maxRowChars` with a
 * marker. Overlap is counted in whole rows.
 *
 * Linear time: Intl.Segmenter is never given more than {@link SEGMENT_WINDOW} characters at once
 * (its cost grows faster than the input on long text without sentence breaks). A longer paragraph
 * is first cut into windows at the last whitespace of each window, or at the window's end when it
 * has none (never inside a surrogate pair or before a combining mark); each window is segmented on
 * its own. Chunks stay within `size` either way; a sentence crossing a window's edge is split there
 * as if it were two.
 */
import { CHUNK_DEFAULTS } from '../shared/knowledge/jobs.ts';
import type { PageText } from './extract/pdf.ts';
import type { SheetRows } from './extract/spreadsheet.ts';

/** How to chunk. */
export interface ChunkOptions {
  /** Most characters (UTF-16 code units) in a chunk, overlap included. @defaultValue 1200 */
  size?: number;
  /**
   * Characters of the previous chunk repeated at the start of the next one (pages: its trailing
   * text from a word boundary; sheets: its trailing whole rows). @defaultValue 150
   */
  overlap?: number;
  /** Sheets only: a single row longer than this is cut, with {@link TRUNCATION_MARKER}. @defaultValue 4 × size */
  maxRowChars?: number;
  /**
   * Called with the characters given to each Intl.Segmenter call: a meter of the chunker's work
   * (tests and the bench count it). @defaultValue none
   */
  onSegment?: (chars: number) => void;
}

export { CHUNK_DEFAULTS };
export const TRUNCATION_MARKER = ' … [truncated]';

export interface PageChunk {
  text: string;
  source: { page: number };
}

export interface SheetChunk {
  text: string;
  /** The sheet and the 1-based sheet row numbers of the chunk's first and last rows. */
  source: { sheet: string; rows: [number, number] };
}

interface Settings {
  size: number;
  overlap: number;
  maxRowChars: number;
  /** Segments `text` with `segmenter`, counted by `onSegment`. */
  segment: (segmenter: Intl.Segmenter, text: string) => Intl.Segments;
}

/** Most characters given to one Intl.Segmenter call. */
export const SEGMENT_WINDOW = 8192;

function settingsOf(options: ChunkOptions): Settings {
  const size = options.size ?? CHUNK_DEFAULTS.size;
  const overlap = options.overlap ?? CHUNK_DEFAULTS.overlap;
  const maxRowChars = options.maxRowChars ?? size * 4;
  if (!Number.isInteger(size) || size < 20)
    throw new RangeError(`size must be an integer >= 20, got ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap * 2 > size) {
    throw new RangeError(`overlap must be an integer from 0 to size / 2, got ${overlap}`);
  }
  if (!Number.isInteger(maxRowChars) || maxRowChars < size) {
    throw new RangeError(`maxRowChars must be an integer >= size, got ${maxRowChars}`);
  }
  const meter = options.onSegment;
  const segment = (segmenter: Intl.Segmenter, text: string): Intl.Segments => {
    meter?.(text.length);
    return segmenter.segment(text);
  };
  return { size, overlap, maxRowChars, segment };
}

const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const words = new Intl.Segmenter(undefined, { granularity: 'word' });
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Control characters other than tab and line breaks, which PDFs sometimes carry. */
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f]/g;

/** Collapses every run of whitespace (line breaks included) to one space. */
const flatten = (text: string): string => text.replace(CONTROL, '').replace(/\s+/g, ' ').trim();

/** A piece of text and what separated it from the piece before it in the source. */
interface Unit {
  text: string;
  sep: string;
}

/** A character that must stay with the one before it: a low surrogate, a mark or a joiner. */
const CLINGS = /^[\uDC00-\uDFFF\p{M}\u200C\u200D\uFE00-\uFE0F]/u;

/**
 * `text` in pieces of at most `max` characters: each cut at the piece's last whitespace when it has
 * one in its second half, else at `max` moved back before any character that clings to the one
 * before it. Linear: every character is looked at a bounded number of times.
 */
function windows(text: string, max: number, sep: string): Unit[] {
  if (text.length <= max) return [{ text, sep }];
  const pieces: Unit[] = [];
  let start = 0;
  let gap = sep;
  while (text.length - start > max) {
    let end = start + max;
    let next = end;
    const space = text.lastIndexOf(' ', end);
    if (space > start + max / 2) {
      end = space;
      next = space + 1;
    } else {
      while (end > start + 1 && CLINGS.test(text.slice(end, end + 1))) end -= 1;
      next = end;
    }
    pieces.push({ text: text.slice(start, end), sep: gap });
    gap = next > end ? ' ' : '';
    start = next;
  }
  pieces.push({ text: text.slice(start), sep: gap });
  return pieces;
}

/**
 * Splits `text` into `granularity` segments of at most `size`, recursing into longer ones; text
 * over {@link SEGMENT_WINDOW} is segmented a window at a time.
 */
function split(text: string, settings: Settings, sep: string, level: 0 | 1 | 2): Unit[] {
  const { size } = settings;
  if (text.length <= size) return [{ text, sep }];
  const segmenter = [sentences, words, graphemes][level] ?? graphemes;
  const units: Unit[] = [];
  for (const piece of windows(text, SEGMENT_WINDOW, sep)) {
    let gap = piece.sep;
    const first = units.length;
    for (const { segment } of settings.segment(segmenter, piece.text)) {
      const trimmed = segment.trim();
      if (trimmed === '') {
        gap = units.length === first ? piece.sep : ' ';
        continue;
      }
      if (level === 2) {
        // A grapheme cluster longer than a chunk (a pile of combining marks) goes by code points.
        const parts = segment.length > size ? Array.from(segment) : [segment];
        parts.forEach((part, i) => units.push({ text: part, sep: i === 0 ? gap : '' }));
      } else units.push(...split(trimmed, settings, gap, level === 0 ? 1 : 2));
      gap = /\s$/.test(segment) ? ' ' : '';
    }
  }
  return units;
}

/** The end of `text` from the first word boundary within its last `overlap` characters. */
function tailOf(text: string, overlap: number, settings: Settings): string {
  if (overlap === 0) return '';
  const from = text.length - overlap;
  // Only the end is segmented; the word before `from` is included, so its boundary is known.
  const before = text.lastIndexOf(' ', from - 1);
  const base = Math.max(0, before);
  for (const { index: at, segment, isWordLike } of settings.segment(words, text.slice(base))) {
    const index = base + at;
    if (index === 0 || index < from || segment.trim() === '') continue;
    // A word, or anything after a space: never punctuation glued to the word before it.
    if (isWordLike === true || /\s/.test(text[index - 1] ?? '')) return text.slice(index);
  }
  return '';
}

/** Packs units into chunks of at most `size`, each after the first starting with an overlap. */
function pack(units: Unit[], settings: Settings): string[] {
  const { size, overlap } = settings;
  const chunks: string[] = [];
  let current = '';
  for (const unit of units) {
    if (current === '') {
      current = unit.text;
    } else if (current.length + unit.sep.length + unit.text.length <= size) {
      current += unit.sep + unit.text;
    } else {
      chunks.push(current);
      const tail = tailOf(current, overlap, settings);
      const joined = tail + unit.sep + unit.text;
      current = tail !== '' && joined.length <= size ? joined : unit.text;
    }
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

/** Chunks the pages of a document; each chunk comes from one page. */
export function chunkPages(pages: PageText[], options: ChunkOptions = {}): PageChunk[] {
  const settings = settingsOf(options);
  const chunks: PageChunk[] = [];
  for (const { page, text } of pages) {
    const paragraphs = text
      .replace(/\r\n?/g, '\n')
      .split(/\n[^\S\n]*\n/)
      .map(flatten)
      .filter((paragraph) => paragraph !== '');
    const units = paragraphs.flatMap((paragraph) => split(paragraph, settings, '\n\n', 0));
    for (const chunk of pack(units, settings)) {
      const trimmed = chunk.trim();
      if (trimmed !== '') chunks.push({ text: trimmed, source: { page } });
    }
  }
  return chunks;
}

/** `text` cut to at most `max` characters at a grapheme boundary, marker included. */
function truncate(text: string, max: number, settings: Settings): string {
  if (text.length <= max) return text;
  const room = max - TRUNCATION_MARKER.length;
  let end = 0;
  // Only the start is segmented (a cluster longer than 64 code units is cut like any other).
  for (const { index, segment } of settings.segment(graphemes, text.slice(0, room + 64))) {
    if (index + segment.length > room) break;
    end = index + segment.length;
  }
  return text.slice(0, end).trimEnd() + TRUNCATION_MARKER;
}

/** One row as a line: `header: value; header: value`, in header order, empty cells left out. */
export function renderRow(header: string[], cells: Record<string, string>): string {
  return renderWith(header, header.map(flatten), cells);
}

/** {@link renderRow} with the header names already flattened (`names[i]` for `header[i]`). */
function renderWith(header: string[], names: string[], cells: Record<string, string>): string {
  let line = '';
  for (let i = 0; i < header.length; i += 1) {
    const key = header[i]!;
    if (!Object.hasOwn(cells, key)) continue;
    const value = flatten(cells[key]!);
    if (value === '') continue;
    line += `${line === '' ? '' : '; '}${names[i]!}: ${value}`;
  }
  return line;
}

/** Chunks the rows of every sheet; each chunk holds whole rows of one sheet. */
export function chunkSheets(sheets: SheetRows[], options: ChunkOptions = {}): SheetChunk[] {
  const settings = settingsOf(options);
  const { size, overlap, maxRowChars } = settings;
  const chunks: SheetChunk[] = [];
  for (const { sheet, header, rows } of sheets) {
    const names = header.map(flatten);
    let lines: { row: number; text: string }[] = [];
    // The characters `lines` take joined by line breaks.
    let used = -1;
    const flush = (): void => {
      const first = lines[0];
      const last = lines.at(-1);
      if (first === undefined || last === undefined) return;
      const text = lines.map((line) => line.text).join('\n');
      chunks.push({ text, source: { sheet, rows: [first.row, last.row] } });
    };
    const restart = (next: { row: number; text: string }[]): void => {
      lines = next;
      used = next.reduce((sum, line) => sum + line.text.length + 1, -1);
    };
    for (const { row, cells } of rows) {
      const text = renderWith(header, names, cells);
      if (text === '') continue;
      if (lines.length === 0 || used + 1 + text.length <= size) {
        if (text.length > size) {
          lines.push({ row, text: truncate(text, maxRowChars, settings) });
          flush();
          restart([]);
        } else {
          lines.push({ row, text });
          used += text.length + 1;
        }
        continue;
      }
      flush();
      // Overlap: the previous chunk's trailing whole rows that fit in `overlap` characters,
      // never all of them, and only when the new row still fits beside them.
      let kept: typeof lines = [];
      for (let i = lines.length - 1, room = overlap; i > 0; i -= 1) {
        const line = lines[i];
        if (line === undefined || line.text.length + 1 > room) break;
        room -= line.text.length + 1;
        kept = [line, ...kept];
      }
      const keptLength = kept.reduce((sum, line) => sum + line.text.length + 1, 0);
      if (text.length > size) {
        restart([{ row, text: truncate(text, maxRowChars, settings) }]);
        flush();
        restart([]);
      } else {
        restart(keptLength + text.length <= size ? [...kept, { row, text }] : [{ row, text }]);
      }
    }
    flush();
  }
  return chunks;
}
