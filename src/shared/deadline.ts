/**
 * A promise with a deadline: what waits on a model or a provider gives up after a while, whether
 * or not the work itself can be stopped (the late result is dropped).
 */
import { BotwireError } from './errors.ts';

/** `promise`, or a retryable `BW_ERR_UPSTREAM` "<what> took longer than <ms> ms" past `ms`. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BotwireError('BW_ERR_UPSTREAM', `${what} took longer than ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
