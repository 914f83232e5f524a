/**
 * What outside calls share (the language component's audio API and platform media, the embeddings
 * API): one failure model
 * and response bodies read with a size cap, so a large or endless body cannot fill the memory.
 */
import { BotwireError } from './errors.ts';
import { failureCause } from './failure-cause.ts';

/** A call that never got an answer (network, timeout): trying again may help. */
export function unreachable(what: string, error: unknown): BotwireError {
  // The URL may hold a bot token: report the cause's code only.
  return new BotwireError(
    'BW_ERR_UPSTREAM',
    `${what} could not be reached (${failureCause(error)})`,
    { cause: error },
  );
}

/** An answer that is not a success: 5xx, 408 and 429 may pass, other 4xx will not. */
export function refused(what: string, status: number, detail: string): BotwireError {
  const retryable = status >= 500 || status === 408 || status === 429;
  return new BotwireError('BW_ERR_UPSTREAM', `${what} answered ${status}: ${detail}`.trim(), {
    retryable,
    details: { status },
  });
}

/** The error message an API put in its JSON error body, if any (OpenAI, Graph, Bot API shapes). */
export async function errorDetail(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as {
    error?: { message?: unknown } | string;
    description?: unknown;
  };
  const message =
    typeof body.error === 'string'
      ? body.error
      : typeof body.error?.message === 'string'
        ? body.error.message
        : typeof body.description === 'string'
          ? body.description
          : '';
  return message.slice(0, 300);
}

/**
 * Reads `response`'s body, refusing (not retryably) one larger than `maxBytes`: checked against
 * content-length first, then while streaming, since a server may not say or may lie.
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
  what: string,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new BotwireError('BW_ERR_UPSTREAM', `${what} is larger than ${maxBytes} bytes`, {
      retryable: false,
      details: { maxBytes },
    });
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array();
  // Node's fetch types the body loosely; its chunks are bytes.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof BotwireError) throw error;
    throw unreachable(what, error);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
