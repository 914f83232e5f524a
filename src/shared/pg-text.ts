/**
 * Text Postgres can store: `text` and `jsonb` refuse U+0000 and lone UTF-16 surrogates. The edge
 * refuses such strings in admin bodies (`json.ts`); the indexer mends them in document text,
 * channel in what users send (before anything stores it) and in the rows of the calls it made,
 * language in what its providers answer (translations, transcripts), and flow in what outside
 * services answer (HTTP steps, knowledge answers).
 */

/** U+0000, a high surrogate without its low half, or a low surrogate without its high half. */
export const UNSTORABLE =
  /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** `text` with NUL characters dropped and lone surrogates replaced by U+FFFD. */
export function storable(text: string): string {
  return text.replace(UNSTORABLE_ALL, (found) => (found === '\u0000' ? '' : '\uFFFD'));
}

/** Sets an own, enumerable property, whatever its name (`__proto__` included), as JSON.parse does. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * `value` with every string in it made `storable`, object keys included; `value` itself (no copy)
 * when none needed it. Arrays and plain objects are walked. Two keys that mend to the same one
 * keep the later value.
 */
export function storableDeep<T>(value: T): T {
  if (typeof value === 'string') return (UNSTORABLE.test(value) ? storable(value) : value) as T;
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  let copy: Record<string, unknown> | undefined;
  for (const [i, key] of keys.entries()) {
    const item = source[key];
    const mended = storableDeep(item);
    const mendedKey = UNSTORABLE.test(key) ? storable(key) : key;
    if (copy === undefined) {
      if (Object.is(mended, item) && mendedKey === key) continue;
      // The keys before this one were left as they were: copied as they are, in order.
      copy = (Array.isArray(source) ? [] : {}) as Record<string, unknown>;
      for (const earlier of keys.slice(0, i)) put(copy, earlier, source[earlier]);
    }
    put(copy, mendedKey, mended);
  }
  return (copy ?? value) as T;
}

// What JSON.stringify writes for the text Postgres refuses: U+0000 and lone surrogates come out
// as escapes, and only they do (a pair is written as it is), in values and keys alike. A false
// positive (the six characters `\u0000` typed by a user) only takes the slower path.
const ESCAPED_UNSTORABLE = /\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

/**
 * JSON of `value` that `jsonb` accepts: strings holding U+0000 or a lone surrogate are mended
 * (`storable`). For a row that must not fail on its text: channel writes an outbound call's row
 * after the call was made.
 */
export function storableJson(value: unknown): string {
  // One serialisation and one scan when nothing needs mending, the usual case.
  const json = JSON.stringify(value);
  return ESCAPED_UNSTORABLE.test(json) ? JSON.stringify(storableDeep(value)) : json;
}
