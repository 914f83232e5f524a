/**
 * Any OpenAI-compatible `POST <base>/embeddings` API (OpenAI, Azure OpenAI, Ollama, vLLM,
 * text-embeddings-inference): `{model, input: [...], dimensions?}` in, `{data: [{index,
 * embedding}]}` out. Texts go in batches of `batch`; each call has a timeout, and a failed call
 * (network, timeout, 5xx, 429) is tried again with exponential backoff, waiting at least what a
 * 429's `Retry-After` asks. An answer of the wrong dimension or shape is refused with
 * `BW_ERR_EMBEDDINGS_INVALID`, and nothing of it is kept.
 */
import { BotwireError } from '../errors.ts';
import { errorDetail, readCapped, refused, unreachable } from '../http-body.ts';
import { MAX_EMBED_CHARS, type EmbeddingProvider } from './provider.ts';
import { normalize } from './vectors.ts';

export interface ApiProviderOptions {
  /** Base URL, no trailing slash (`EMBEDDINGS_API_URL`). */
  baseUrl: string;
  /** Bearer key; empty sends none (`EMBEDDINGS_API_KEY`). */
  apiKey: string;
  /** Model name sent (`EMBEDDINGS_MODEL`). */
  model: string;
  /** Dimensions asked for and required; 0 asks for none and takes the model's own (`EMBEDDINGS_DIMENSIONS`). */
  dimensions: number;
  /** Per call (milliseconds). @defaultValue 10000 */
  timeoutMs?: number;
  /** Texts per call. @defaultValue 64 */
  batch?: number;
  /** Tries after the first failed one. @defaultValue 3 */
  retries?: number;
  /** First backoff (milliseconds), doubled per try. @defaultValue 500 */
  backoffMs?: number;
  /** Longest wait for a `Retry-After` (milliseconds); a longer one fails the call. @defaultValue 60000 */
  maxRetryAfterMs?: number;
  fetch?: typeof fetch;
}

const WHAT = 'embeddings API';
/** Largest answer read (bytes): 2,048 texts of 8,192 dimensions written as JSON stay under it. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

function invalid(message: string): BotwireError {
  return new BotwireError('BW_ERR_EMBEDDINGS_INVALID', message, { retryable: false });
}

/** Milliseconds a `Retry-After` header asks for (seconds or an HTTP date), if any. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

export class ApiEmbeddingProvider implements EmbeddingProvider {
  readonly model: string;
  readonly batch: number;
  readonly #options: Required<Omit<ApiProviderOptions, 'fetch'>> & { fetch: typeof fetch };

  constructor(options: ApiProviderOptions) {
    this.#options = {
      timeoutMs: 10_000,
      batch: 64,
      retries: 3,
      backoffMs: 500,
      maxRetryAfterMs: 60_000,
      fetch: globalThis.fetch,
      ...options,
    };
    this.batch = this.#options.batch;
    this.model = `api:${options.model}${options.dimensions > 0 ? `@${options.dimensions}` : ''}`;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    let dims: number | undefined;
    for (let start = 0; start < texts.length; start += this.batch) {
      const batch = texts.slice(start, start + this.batch).map((t) => t.slice(0, MAX_EMBED_CHARS));
      const got = await this.#call(batch, signal);
      for (const vector of got) {
        dims ??= vector.length;
        if (vector.length !== dims)
          throw invalid(
            `the embeddings API answered vectors of ${vector.length} and ${dims} dimensions`,
          );
        vectors.push(vector);
      }
    }
    return vectors;
  }

  /** One batch, tried again on failures that may pass. */
  async #call(input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const { retries, backoffMs, maxRetryAfterMs } = this.#options;
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await this.#once(input, signal);
      if ('vectors' in outcome) return outcome.vectors;
      if (attempt >= retries) throw outcome.error;
      const backoff = backoffMs * 2 ** attempt;
      const asked = outcome.retryAfterMs;
      if (asked !== undefined && asked > maxRetryAfterMs) throw outcome.error;
      await sleep(Math.max(backoff, asked ?? 0), signal);
    }
  }

  async #once(
    input: readonly string[],
    signal?: AbortSignal,
  ): Promise<{ vectors: Float32Array[] } | { error: BotwireError; retryAfterMs?: number }> {
    const { baseUrl, apiKey, model, dimensions, timeoutMs, fetch } = this.#options;
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${baseUrl}/embeddings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        body: JSON.stringify({ model, input, ...(dimensions > 0 ? { dimensions } : {}) }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      signal?.throwIfAborted();
      return { error: unreachable(WHAT, error) };
    }
    if (!response.ok) {
      // A refusal (bad key, unknown model) stays a refusal; 408, 429 and 5xx may pass.
      const error = refused(WHAT, response.status, await errorDetail(response));
      if (!error.retryable) throw error;
      const retryAfter = retryAfterMs(response.headers.get('retry-after'));
      return retryAfter === undefined ? { error } : { error, retryAfterMs: retryAfter };
    }
    let body: unknown;
    try {
      const bytes = await readCapped(response, MAX_ANSWER_BYTES, `the ${WHAT}'s answer`);
      body = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch (error) {
      signal?.throwIfAborted();
      if (error instanceof BotwireError) return { error };
      return {
        error: new BotwireError('BW_ERR_UPSTREAM', `the ${WHAT} answered a body that is not JSON`, {
          cause: error,
        }),
      };
    }
    return { vectors: this.#vectorsOf(body, input.length) };
  }

  #vectorsOf(body: unknown, count: number): Float32Array[] {
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== count) {
      throw invalid(
        `the embeddings API answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${count} texts`,
      );
    }
    const vectors: Float32Array[] = new Array<Float32Array>(count);
    data.forEach((item: unknown, position) => {
      const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      const at = typeof index === 'number' ? index : position;
      if (!Number.isInteger(at) || at < 0 || at >= count || vectors[at] !== undefined) {
        throw invalid('the embeddings API answered vectors with bad or repeated indexes');
      }
      if (
        !Array.isArray(embedding) ||
        embedding.length === 0 ||
        !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))
      ) {
        throw invalid('the embeddings API answered a vector that is not a list of numbers');
      }
      const { dimensions } = this.#options;
      if (dimensions > 0 && embedding.length !== dimensions) {
        throw invalid(
          `the embeddings API answered ${embedding.length} dimensions; EMBEDDINGS_DIMENSIONS is ${dimensions}`,
        );
      }
      vectors[at] = normalize(Float32Array.from(embedding as number[]));
    });
    return vectors;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
