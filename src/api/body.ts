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

/** Rejects prototype-pollution keys while parsing, so no handler ever sees them. */
function reviver(key: string, value: unknown): unknown {
  if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
    throw new BotwireError('BW_ERR_SCHEMA', `the key "${key}" is not allowed`, {
      details: { problems: [{ path: '/', message: `key ${key} is not allowed` }] },
    });
  }
  return value;
}

/** Reads and parses the request body. @param limit most bytes accepted. */
export async function readJson(ctx: Context, limit: number): Promise<JsonBody> {
  if (!ctx.is('application/json')) {
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
    return { raw, json: JSON.parse(text, reviver) as unknown };
  } catch (error) {
    if (error instanceof BotwireError) throw error;
    throw new BotwireError(
      'BW_ERR_MALFORMED_JSON',
      `the body is not valid JSON: ${(error as Error).message}`,
    );
  }
}
