/**
 * The one place HTTP errors are shaped: `{ "error": { "code", "message", "details"? } }`.
 * 4xx messages are written for the caller; a 5xx shows only its code, and the cause goes to the
 * log. Driver errors and secrets never reach a response.
 */
import type { Middleware } from 'koa';
import { BotwireError, isUnavailable } from '../shared/errors.ts';
import type { BurstLog } from './burst-log.ts';

/** Answers that mean Redis is away or short of replicas: one line per burst, no stack. */
const OUTAGES = new Set(['BW_ERR_UNAVAILABLE', 'BW_ERR_NO_REPLICA']);

/** The first failure's message down a cause chain that says what was away. */
function reasonOf(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e && parts.length < 3; e = (e as { cause?: unknown }).cause) {
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string') parts.push(message);
  }
  return parts.join(': ');
}

export const errorMiddleware =
  (warnings: BurstLog): Middleware =>
  async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new BotwireError('BW_ERR_NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
      }
    } catch (error) {
      const known =
        error instanceof BotwireError
          ? error
          : isUnavailable(error)
            ? new BotwireError('BW_ERR_UNAVAILABLE', 'a backing service is unavailable', {
                cause: error,
              })
            : undefined;
      const status = known?.status ?? 500;
      const code = known?.code ?? 'BW_ERR_INTERNAL';
      if (
        code === 'BW_ERR_OVERLOADED' ||
        code === 'BW_ERR_BOT_OVERLOADED' ||
        code === 'BW_ERR_TOO_MANY_STREAMS'
      ) {
        // Expected under load and logged once per episode by the backlog gauge; a stack per refused
        // callback would cost more CPU than refusing it.
        ctx.log.debug({ code }, 'refused: over a load limit');
      } else if (OUTAGES.has(code)) {
        // A request at a time while it lasts: a line per burst (docs/operations.md).
        warnings.warn(
          code,
          { code, reason: reasonOf(error) },
          'refusing requests: Redis is unavailable',
        );
      } else if (status >= 500) {
        ctx.log.error({ err: error, code }, 'request failed');
      } else {
        ctx.log.info({ code, reason: known?.message }, 'request refused');
      }
      ctx.status = status;
      ctx.set('Cache-Control', 'no-store');
      // An overloaded pipeline drains in about a second; an outage takes longer.
      // One bot's backlog waits on that bot's platform or flow: ask for a few seconds.
      if (status === 503) ctx.set('Retry-After', code === 'BW_ERR_OVERLOADED' ? '1' : '5');
      if (code === 'BW_ERR_VISITOR_STREAMS') ctx.set('Retry-After', '5');
      // A platform's refusal is the caller's business (it says what to fix); other 5xx stay opaque.
      const exposed = known !== undefined && (status < 500 || known.code === 'BW_ERR_UPSTREAM');
      ctx.body = {
        error: {
          code,
          message: exposed ? known.message : code,
          ...(exposed && known.details ? { details: known.details } : {}),
        },
      };
    }
  };
