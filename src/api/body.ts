/**
 * Reading JSON bodies as raw bytes first: signatures are checked over exactly what was sent, the
 * size limit answers 413 before anything is parsed, and a parse failure answers 400: not UTF-8,
 * not JSON, or nested deeper than MAX_JSON_DEPTH is `BW_ERR_MALFORMED_JSON`; a key `__proto__`,
 * `constructor` or `prototype` (however escaped) is `BW_ERR_SCHEMA`. A body that has not arrived
 * whole within the deadline is answered 408 `BW_ERR_BODY_TIMEOUT` and its connection closed, so a
 * client sending a byte now and then cannot hold the edge's sockets.
 */
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { BotwireError } from '../shared/errors.ts';
import { parseJsonStrict, unstorableString } from '../shared/json.ts';

/** Reads an admin request's JSON body, checked against the named schema (`routes.ts` makes it). */
export type ReadBody = <T>(ctx: Context, schema: string) => Promise<T>;

export interface JsonBody {
  raw: Buffer;
  json: unknown;
}

/** Whether the request sends a body at all (an optional body may be left out, as `{}`). */
export function hasBody(ctx: Context): boolean {
  return Boolean(ctx.request.length) || ctx.get('transfer-encoding') !== '';
}

/** Reads the raw body, or throws `BW_ERR_BODY_TIMEOUT` when it takes longer than `timeoutMs`. */
async function rawWithin(ctx: Context, limit: number, timeoutMs: number): Promise<Buffer> {
  const reading = getRawBody(ctx.req, { limit, length: ctx.request.length });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The rest of the body is not wanted: the connection ends with this answer.
      ctx.set('Connection', 'close');
      reject(
        new BotwireError('BW_ERR_BODY_TIMEOUT', `the body did not arrive within ${timeoutMs} ms`),
      );
    }, timeoutMs);
  });
  reading.catch(() => undefined); // settles after the deadline when the socket closes
  try {
    return await Promise.race([reading, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads and parses the request body.
 * @param limit most bytes accepted.
 * @param timeoutMs longest the body may take to arrive (milliseconds).
 */
export async function readJson(ctx: Context, limit: number, timeoutMs: number): Promise<JsonBody> {
  // A plain prefix check: type-is parses the media type on every request.
  const type = ctx.get('content-type').toLowerCase();
  if (!type.startsWith('application/json') && !ctx.is('application/json')) {
    throw new BotwireError('BW_ERR_UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
  }
  let raw: Buffer;
  try {
    raw = await rawWithin(ctx, limit, timeoutMs);
  } catch (error) {
    if (error instanceof BotwireError) throw error;
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

/**
 * Refuses (400 `BW_ERR_SCHEMA`) a body with a string Postgres cannot store, in text or jsonb:
 * U+0000 or an unpaired UTF-16 surrogate (a 500 from the driver otherwise).
 */
export function refuseUnstorable({ raw, json }: JsonBody): void {
  const unstorable = unstorableString(json, raw.toString('utf8'));
  if (unstorable === undefined) return;
  const message = 'must not contain U+0000 or an unpaired UTF-16 surrogate';
  throw new BotwireError('BW_ERR_SCHEMA', `${unstorable} ${message}`, {
    details: { problems: [{ path: unstorable, message }] },
  });
}
