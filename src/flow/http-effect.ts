/**
 * Carries out a flow's `http` action: one call through `guarded-request.ts` (addresses checked
 * after DNS and on every redirect, redirects followed by hand, the answer capped while it
 * streams), with the flow's timeout; the answer as `{status, body}` (JSON parsed when it is JSON).
 * A non-2xx status, a timeout, a network error, a refused address, a request body or an answer over
 * the cap is a failed result with a short reason (and, for the last two, its `BW_ERR_*` code); the flow
 * decides what to do with it.
 *
 * The body is mended before the flow sees it (`storableDeep`: U+0000 dropped, a lone surrogate
 * replaced by U+FFFD, in strings and keys): whatever the flow keeps of it goes into
 * `conversation_state`, whose `jsonb` refuses both, and a turn that cannot be stored would fail on
 * every retry.
 */
import { BotwireError } from '../shared/errors.ts';
import { jsonLengthAtMost } from '../shared/json.ts';
import { storableDeep } from '../shared/pg-text.ts';
import type { AddressPolicy } from './address-policy.ts';
import type { Effect, EffectResultEvent } from './engine/types.ts';
import { guardedRequest } from './guarded-request.ts';

/** Default largest answer read (bytes), `FLOW_HTTP_MAX_BODY_BYTES`. */
export const MAX_BODY_BYTES = 256 * 1024;
/** Redirects one HTTP step follows before it fails. */
export const MAX_REDIRECTS = 5;

/** How a flow's HTTP steps may reach out. */
export interface HttpOptions {
  /** Which addresses may be called (`FLOW_HTTP_ALLOW`). */
  policy: AddressPolicy;
  /** Largest answer read, and largest request body sent (bytes). @defaultValue 262144 */
  maxBodyBytes?: number;
  /** @defaultValue 5 */
  maxRedirects?: number;
}

/**
 * The failure of an HTTP step refused before any call: an address the URL's values made unsafe,
 * or a request body over `maxBodyBytes`; undefined when it may be made.
 */
export function refusedBeforeCall(
  effect: Extract<Effect, { kind: 'http' }>,
  maxBodyBytes = MAX_BODY_BYTES,
): EffectResultEvent | undefined {
  const base = { type: 'effect_result' as const, request_id: effect.request_id };
  if (effect.refused !== undefined) {
    return { ...base, ok: false, code: 'BW_ERR_FLOW_HTTP_REFUSED', error: effect.refused };
  }
  // The body's templates may repeat a large variable: its size is checked before it is written.
  if (effect.body !== undefined && !jsonLengthAtMost(effect.body, maxBodyBytes)) {
    const error = `the request body would be over ${maxBodyBytes} bytes`;
    return { ...base, ok: false, code: 'BW_ERR_FLOW_BUDGET', error };
  }
  return undefined;
}

/** What the flow gets of an answer: `{status, body}`, a failure unless the status is 2xx. */
export function httpAnswer(requestId: string, status: number, body: unknown): EffectResultEvent {
  const base = { type: 'effect_result' as const, request_id: requestId };
  const value = { status, body: storableDeep(body) };
  return status >= 200 && status < 300
    ? { ...base, ok: true, value }
    : { ...base, ok: false, value, error: `HTTP ${status}` };
}

export async function runHttpEffect(
  options: HttpOptions,
  effect: Extract<Effect, { kind: 'http' }>,
): Promise<EffectResultEvent> {
  const base = { type: 'effect_result' as const, request_id: effect.request_id };
  const refused = refusedBeforeCall(effect, options.maxBodyBytes);
  if (refused) return refused;
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const signal = AbortSignal.timeout(effect.timeout_ms);
  try {
    const response = await guardedRequest({
      method: effect.method,
      url: effect.url,
      headers: effect.headers,
      ...(effect.body === undefined ? {} : { body: JSON.stringify(effect.body) }),
      signal,
      policy: options.policy,
      maxBodyBytes,
      maxRedirects: options.maxRedirects ?? MAX_REDIRECTS,
    });
    const text = response.body.toString('utf8');
    let body: unknown = text;
    if (response.contentType.includes('json')) {
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        // keep the text
      }
    }
    return httpAnswer(effect.request_id, response.status, body);
  } catch (error) {
    if (error instanceof BotwireError) {
      return { ...base, ok: false, code: error.code, error: error.message };
    }
    const name = (error as Error).name;
    return {
      ...base,
      ok: false,
      error: signal.aborted
        ? `timed out after ${effect.timeout_ms} ms`
        : `request failed (${(error as { code?: string }).code ?? name})`,
    };
  }
}
