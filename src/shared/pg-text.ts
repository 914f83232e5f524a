/**
 * Text Postgres can store: `text` and `jsonb` refuse U+0000 and lone UTF-16 surrogates. The edge
 * refuses such strings in admin bodies (`json.ts`); the indexer mends them in document text.
 */

/** U+0000, a high surrogate without its low half, or a low surrogate without its high half. */
export const UNSTORABLE =
  /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** `text` with NUL characters dropped and lone surrogates replaced by U+FFFD. */
export function storable(text: string): string {
  return text.replace(UNSTORABLE_ALL, (found) => (found === '\u0000' ? '' : '\uFFFD'));
}
