/**
 * Parsing JSON from outside (HTTP bodies, the topic scripts) with the limits the rest of the code
 * relies on: UTF-8 only, nesting at most `MAX_JSON_DEPTH` levels, and no key that could reach an
 * object's prototype (`__proto__`, `constructor`, `prototype`), however it is spelled.
 */
import { isUtf8 } from 'node:buffer';
import { UNSTORABLE } from './pg-text.ts';

/**
 * Deepest nesting accepted. Platform payloads nest about 6 levels and flows about 30; deeper
 * documents are refused before anything recursive (schema validation, JSON.stringify when
 * publishing) can run out of stack on them.
 */
export const MAX_JSON_DEPTH = 100;

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

// A key that could reach an object's prototype: written plainly, or with a letter or `_` escaped
// as \u00XX (JSON.parse unescapes keys, so "\u005f_proto__" is "__proto__").
const SUSPECT = /"(?:__proto__|constructor|prototype)"|\\u00[4-7][0-9a-f]/i;

export type JsonParse =
  | { ok: true; value: unknown }
  | {
      ok: false;
      /** `syntax`: not JSON, not UTF-8 or too deep; `key`: a forbidden key (the document is valid). */
      kind: 'syntax' | 'key';
      message: string;
      /** JSON Pointer of the offending key (kind `key`). */
      path?: string;
    };

/** Whether `text` nests arrays and objects deeper than `max`, strings taken into account. */
function deeperThan(text: string, max: number): boolean {
  let opened = 0;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    if (ch === 0x5b || ch === 0x7b) opened += 1;
  }
  if (opened <= max) return false; // cannot nest deeper than it opens: the common, cheap answer
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i += 1; // skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth -= 1;
  }
  return false;
}

const pointer = (path: string[]): string =>
  `/${path.map((k) => k.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** The path of the first forbidden key in a parsed value (depth is already bounded). */
function forbiddenKey(value: unknown, path: string[] = []): string[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (FORBIDDEN.has(key)) return [...path, key];
    const found = forbiddenKey(child, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * Parses JSON with the plain native parser (a reviver would be slower, and some polyfills, such as
 * core-js's source-text-access JSON.parse that pdf.js installs, replace the reviver path with a
 * lenient parser). The tree is walked for forbidden keys only when the text may hold one.
 */
export function parseJsonStrict(input: Buffer | string): JsonParse {
  if (Buffer.isBuffer(input) && !isUtf8(input)) {
    return { ok: false, kind: 'syntax', message: 'the body is not valid UTF-8' };
  }
  const text = Buffer.isBuffer(input) ? input.toString('utf8') : input;
  if (deeperThan(text, MAX_JSON_DEPTH)) {
    return { ok: false, kind: 'syntax', message: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    return { ok: false, kind: 'syntax', message: (error as Error).message };
  }
  if (SUSPECT.test(text)) {
    const path = forbiddenKey(value);
    if (path) {
      return {
        ok: false,
        kind: 'key',
        message: `the key "${path[path.length - 1]}" is not allowed`,
        path: pointer(path),
      };
    }
  }
  return { ok: true, value };
}

/**
 * The pointer of the first string Postgres cannot store (text and jsonb refuse U+0000 and lone
 * UTF-16 surrogates), or undefined. Both can only be written as \u escapes in JSON, so the walk
 * runs only when `text` has one.
 */
export function unstorableString(value: unknown, text: string): string | undefined {
  if (!/\\u(?:0000|d[89a-f])/i.test(text)) return undefined;
  const walk = (v: unknown, path: string[]): string[] | undefined => {
    if (typeof v === 'string') return UNSTORABLE.test(v) ? path : undefined;
    if (v === null || typeof v !== 'object') return undefined;
    for (const [key, child] of Object.entries(v)) {
      if (UNSTORABLE.test(key)) return [...path, key];
      const found = walk(child, [...path, key]);
      if (found) return found;
    }
    return undefined;
  };
  const found = walk(value, []);
  return found && pointer(found);
}

/**
 * Whether `value` written as JSON takes at most about `limit` characters (each string counted
 * without its escapes), found without writing it: the walk stops as soon as the count passes the
 * limit, so a value that repeats one large object a thousand times costs no more than the limit.
 */
export function jsonLengthAtMost(value: unknown, limit: number): boolean {
  let left = limit;
  const walk = (item: unknown, depth: number): boolean => {
    if (depth > MAX_JSON_DEPTH) return false;
    if (typeof item === 'string') left -= item.length + 2;
    else if (item === null || typeof item !== 'object') left -= String(item).length;
    else if (Array.isArray(item)) {
      left -= 2;
      for (const element of item) if (left < 0 || !walk(element, depth + 1)) return false;
    } else {
      left -= 2;
      for (const [key, element] of Object.entries(item)) {
        left -= key.length + 4;
        if (left < 0 || !walk(element, depth + 1)) return false;
      }
    }
    return left >= 0;
  };
  return walk(value, 0);
}
