/**
 * The one place HTTP errors are shaped: `{ "error": { "code", "message", "details"? } }`.
 * 4xx messages are written for the caller; a 5xx shows only its code, and the cause goes to the
 * log. Driver errors and secrets never reach a response.
 */
import type { Middleware } from 'koa';
import { BotwireError, isUnavailable } from '../shared/errors.ts';

export const errorMiddleware: Middleware = async (ctx, next) => {
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
