/**
 * Text Postgres can store: `text` and `jsonb` refuse U+0000 and lone UTF-16 surrogates. The edge
 * refuses such strings in admin bodies (`json.ts`); the indexer mends them in document text, and
 * channel in the rows of the calls it made.
 */

/** U+0000, a high surrogate without its low half, or a low surrogate without its high half. */
export const UNSTORABLE =
  /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** `text` with NUL characters dropped and lone surrogates replaced by U+FFFD. */
export function storable(text: string): string {
  return text.replace(UNSTORABLE_ALL, (found) => (found === '\u0000' ? '' : '\uFFFD'));
}

// What JSON.stringify writes for the text Postgres refuses: U+0000 and lone surrogates come out
// as escapes, and only they do (a pair is written as it is). A false positive (the six
// characters `\u0000` typed by a user) only takes the slower path.
const ESCAPED_UNSTORABLE = /\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

/**
 * JSON of `value` that `jsonb` accepts: strings holding U+0000 or a lone surrogate are mended
 * (`storable`). For a row that must not fail on its text: channel writes an outbound call's row
 * after the call was made.
 */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (!ESCAPED_UNSTORABLE.test(json)) return json;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? storable(v) : v));
}
