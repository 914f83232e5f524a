/**
 * A promise with a deadline: what waits on a model or a provider gives up after a while, whether
 * or not the work itself can be stopped (the late result is dropped).
 */
import { BotwireError, type ErrorCode } from './errors.ts';

/**
 * `promise`, or a `code` error (a retryable `BW_ERR_UPSTREAM` unless told otherwise: what waits on
 * our own Redis says `BW_ERR_UNAVAILABLE`) "<what> took longer than <ms> ms" past `ms`. A late
 * failure of `promise` is handled here (the race listens to it), so it is never unhandled.
 */
export function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
  code: ErrorCode = 'BW_ERR_UPSTREAM',
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BotwireError(code, `${what} took longer than ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
