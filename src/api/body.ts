/**
 * Reading JSON bodies as raw bytes first: signatures are checked over exactly what was sent, the
 * size limit answers 413 before anything is parsed, and a parse failure answers 400.
 */
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { BotwireError } from '../shared/errors.ts';

export interface JsonBody {
  raw: Buffer;
  json: unknown;
}

// A key that could reach an object's prototype if code ever merged the payload into an object.
const SUSPECT_KEY = /(?<!\\)"(?:__proto__|constructor|prototype)"\s*:/;
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** The first forbidden key in a parsed JSON value, if any. */
function forbiddenKey(value: unknown, depth = 0): string | undefined {
  if (depth > 256 || value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (FORBIDDEN.has(key)) return key;
    const found = forbiddenKey(child, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Parses JSON with the plain native parser (a reviver would be slower, and some polyfills, such as
 * core-js's source-text-access JSON.parse that pdf.js installs, replace the reviver path with a
 * lenient parser). Keys that could reach a prototype are refused; the tree is walked only when
 * the raw text mentions one.
 */
function parseJson(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  if (SUSPECT_KEY.test(text)) {
    const key = forbiddenKey(value);
    if (key) {
      throw new BotwireError('BW_ERR_SCHEMA', `the key "${key}" is not allowed`, {
        details: { problems: [{ path: '/', message: `key ${key} is not allowed` }] },
      });
    }
  }
  return value;
}

/** Reads and parses the request body. @param limit most bytes accepted. */
export async function readJson(ctx: Context, limit: number): Promise<JsonBody> {
  // A plain prefix check: type-is parses the media type on every request.
  const type = ctx.get('content-type').toLowerCase();
  if (!type.startsWith('application/json') && !ctx.is('application/json')) {
    throw new BotwireError('BW_ERR_UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
  }
  let raw: Buffer;
  try {
    raw = await getRawBody(ctx.req, {
      limit,
      length: ctx.request.length,
    });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') {
      throw new BotwireError('BW_ERR_PAYLOAD_TOO_LARGE', `the body is larger than ${limit} bytes`);
    }
    throw new BotwireError('BW_ERR_MALFORMED_JSON', 'the body could not be read', { cause: error });
  }
  const text = raw.toString('utf8');
  try {
    return { raw, json: parseJson(text) };
  } catch (error) {
    if (error instanceof BotwireError) throw error;
    throw new BotwireError(
      'BW_ERR_MALFORMED_JSON',
      `the body is not valid JSON: ${(error as Error).message}`,
    );
  }
}
