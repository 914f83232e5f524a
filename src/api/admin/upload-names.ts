/**
 * The names uploaded documents may have. A name is shown to chat users (a knowledge answer cites
 * its document) and becomes a file in the collection's folder, so it must be one plain path
 * segment that reads as what it is: no separators, no `..`, no drive letter, nothing invisible or
 * reordering (control characters, bidirectional controls, zero-width characters).
 */
import { BotwireError } from '../../shared/errors.ts';
import { MAX_FILE_NAME_BYTES } from '../../shared/knowledge/names.ts';

/** Why a name was refused: `details.reason` of `BW_ERR_FILE_NAME`. */
export type FileNameProblem =
  'empty' | 'nul' | 'path' | 'dot' | 'absolute' | 'control' | 'format' | 'hidden' | 'too_long';

const MESSAGES: Record<FileNameProblem, string> = {
  empty: 'a file name may not be empty',
  nul: 'a file name may not hold NUL',
  path: 'a file name is one path segment: no "/" or "\\"',
  dot: 'a file name may not be "." or ".."',
  absolute: 'a file name may not start with a drive letter',
  control: 'a file name may not hold control characters or line separators',
  format:
    'a file name may not hold invisible format characters (bidirectional controls, zero-width characters)',
  hidden: 'a document name may not start with "."',
  too_long: `a file name is at most ${MAX_FILE_NAME_BYTES} bytes (UTF-8)`,
};

// Cc: C0 and C1 controls and DEL; Zl, Zp: line and paragraph separators.
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}]/u;
// Cf holds the bidirectional controls (U+202A-202E, U+2066-2069, U+200E, U+200F), the zero-width
// characters (U+200B-200D, U+2060, U+FEFF) and the soft hyphen; U+200B is listed on its own for
// Unicode versions that did not class it Cf.
const FORMAT = /[\p{Cf}\u200B-\u200F\u202A-\u202E\u2066-\u2069]/u;

/** `name` with every control and format character written as `\u{XXXX}`, for messages. */
function visible(name: string): string {
  return name.replace(
    new RegExp(`${CONTROL.source}|${FORMAT.source}`, 'gu'),
    (c) => `\\u{${c.codePointAt(0)?.toString(16).toUpperCase() ?? ''}}`,
  );
}

/** The first problem of a name as the client sent it, or undefined when it is a plain name. */
export function fileNameProblem(name: string): FileNameProblem | undefined {
  if (name.length === 0) return 'empty';
  if (name.includes('\u0000')) return 'nul';
  if (/[/\\]/.test(name)) return 'path';
  if (name === '.' || name === '..') return 'dot';
  if (/^[A-Za-z]:/.test(name)) return 'absolute';
  if (CONTROL.test(name)) return 'control';
  if (FORMAT.test(name)) return 'format';
  if (name.startsWith('.')) return 'hidden';
  if (Buffer.byteLength(name) > MAX_FILE_NAME_BYTES) return 'too_long';
  return undefined;
}

/**
 * The stored form of an uploaded file name: normalised to NFC (so `é` typed two ways is one
 * file), then checked.
 * @throws BotwireError 400 `BW_ERR_FILE_NAME` with `details.reason` and `details.file`.
 */
export function uploadName(raw: string): string {
  const name = raw.normalize('NFC');
  const problem = fileNameProblem(name);
  if (problem) {
    throw new BotwireError('BW_ERR_FILE_NAME', MESSAGES[problem], {
      details: { file: visible(name.slice(0, 300)), reason: problem },
    });
  }
  return name;
}
