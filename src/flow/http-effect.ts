/**
 * Carries out a flow's `http` action: one request with the flow's timeout, the answer as
 * `{status, body}` (JSON parsed when it is JSON). A non-2xx status, a timeout or a network error
 * is a failed result with a short reason; the flow decides what to do with it.
 *
 * The body is mended before the flow sees it (`storableDeep`: U+0000 dropped, a lone surrogate
 * replaced by U+FFFD, in strings and keys): whatever the flow keeps of it goes into
 * `conversation_state`, whose `jsonb` refuses both, and a turn that cannot be stored would fail on
 * every retry.
 */
import { storableDeep } from '../shared/pg-text.ts';
import type { Effect, EffectResultEvent } from './engine/types.ts';

/** Largest response body read (bytes); more is cut off, so one endpoint cannot exhaust memory. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The response body as text, read up to `max` bytes; the rest is not downloaded (the stream is
 * cancelled), so a huge or endless answer costs at most `max` bytes of memory.
 */
async function readCapped(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    if (size >= max) {
      await reader.cancel().catch(() => undefined);
      break;
    }
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

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
    const text = await readCapped(response, MAX_BODY_BYTES);
    let body: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json')) {
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        // keep the text
      }
    }
    const value = { status: response.status, body: storableDeep(body) };
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
