/**
 * Carries out a flow's `http` action: one request with the flow's timeout, the answer as
 * `{status, body}` (JSON parsed when it is JSON). A non-2xx status, a timeout or a network error
 * is a failed result with a short reason; the flow decides what to do with it.
 */
import type { Effect, EffectResultEvent } from './engine/types.ts';

/** Largest response body read (bytes); more is cut off, so one endpoint cannot exhaust memory. */
const MAX_BODY_BYTES = 1024 * 1024;

export async function runHttpEffect(
  fetchImpl: typeof fetch,
  effect: Extract<Effect, { kind: 'http' }>,
): Promise<EffectResultEvent> {
  const base = { type: 'effect_result' as const, request_id: effect.request_id };
  try {
    const response = await fetchImpl(effect.url, {
      method: effect.method,
      headers: {
        ...(effect.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...effect.headers,
      },
      ...(effect.body === undefined ? {} : { body: JSON.stringify(effect.body) }),
      signal: AbortSignal.timeout(effect.timeout_ms),
      redirect: 'follow',
    });
    const text = (await response.text()).slice(0, MAX_BODY_BYTES);
    let body: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json')) {
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        // keep the text
      }
    }
    const value = { status: response.status, body };
    return response.ok
      ? { ...base, ok: true, value }
      : { ...base, ok: false, value, error: `HTTP ${response.status}` };
  } catch (error) {
    const name = (error as Error).name;
    return {
      ...base,
      ok: false,
      error:
        name === 'TimeoutError'
          ? `timed out after ${effect.timeout_ms} ms`
          : `request failed (${name})`,
    };
  }
}
