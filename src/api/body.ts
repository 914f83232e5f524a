/**
 * Reading JSON bodies as raw bytes first: signatures are checked over exactly what was sent, the
 * size limit answers 413 before anything is parsed, and a parse failure answers 400: not UTF-8,
 * not JSON, or nested deeper than MAX_JSON_DEPTH is `BW_ERR_MALFORMED_JSON`; a key `__proto__`,
 * `constructor` or `prototype` (however escaped) is `BW_ERR_SCHEMA`.
 */
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { BotwireError } from '../shared/errors.ts';
import { parseJsonStrict } from '../shared/json.ts';

export interface JsonBody {
  raw: Buffer;
  json: unknown;
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
  const parsed = parseJsonStrict(raw);
  if (parsed.ok) return { raw, json: parsed.value };
  if (parsed.kind === 'key') {
    throw new BotwireError('BW_ERR_SCHEMA', parsed.message, {
      details: { problems: [{ path: parsed.path ?? '/', message: parsed.message }] },
    });
  }
  throw new BotwireError('BW_ERR_MALFORMED_JSON', `the body is not valid JSON: ${parsed.message}`);
}
