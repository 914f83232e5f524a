/**
 * One call to an OpenAI-compatible chat completions endpoint (`POST <base>/chat/completions`),
 * as the flow's `llm` steps and the retriver's knowledge answers make it: the answer read with a
 * size cap, its first message and the tokens the provider counted, and one failure model whose
 * kind says whether the provider can have billed the call.
 */
import { failureCause } from './failure-cause.ts';
import { readCapped } from './http-body.ts';

/** Largest answer read from the provider (bytes). */
export const MAX_CHAT_ANSWER_BYTES = 256 * 1024;

/** Where the endpoint is (`LLM_API_URL`, no trailing slash) and its key. */
export interface ChatEndpoint {
  baseUrl: string;
  /** Sent as a bearer token; none when empty. */
  apiKey: string;
  /** @defaultValue the global fetch */
  fetch?: typeof fetch;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The request body (OpenAI's names). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  response_format?: unknown;
}

export interface ChatAnswer {
  /** The first choice's message, trimmed (never empty). */
  content: string;
  /** `usage.total_tokens`, when the provider said. */
  totalTokens: number | undefined;
}

/**
 * How a call failed: `unreachable` (no answer came), `status` (a failure status), `timeout` (the
 * signal ended it), `invalid` (an answer over the cap, not JSON, or without a message). The
 * first two are answers a provider does not bill; the others may have been billed.
 */
export type ChatFailure = 'unreachable' | 'status' | 'timeout' | 'invalid';

export class ChatCompletionError extends Error {
  /** The HTTP status of a `status` failure. */
  readonly status: number | undefined;

  constructor(
    readonly kind: ChatFailure,
    message: string,
    options: { cause?: unknown; status?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ChatCompletionError';
    this.status = options.status;
  }
}

/**
 * Asks the endpoint for one completion.
 * @param options.signal ends the call (a `timeout` failure)
 * @param options.maxBytes largest answer read. @defaultValue MAX_CHAT_ANSWER_BYTES
 * @throws ChatCompletionError
 */
export async function chatCompletion(
  endpoint: ChatEndpoint,
  request: ChatRequest,
  options: { signal: AbortSignal; maxBytes?: number },
): Promise<ChatAnswer> {
  const { signal } = options;
  const timedOut = () => new ChatCompletionError('timeout', 'no answer in time');
  let response: Response;
  try {
    response = await (endpoint.fetch ?? fetch)(`${endpoint.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
      },
      body: JSON.stringify(request),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw timedOut();
    throw new ChatCompletionError('unreachable', `unreachable (${failureCause(error)})`, {
      cause: error,
    });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new ChatCompletionError('status', `HTTP ${response.status}`, {
      status: response.status,
    });
  }
  let text: string;
  try {
    const maxBytes = options.maxBytes ?? MAX_CHAT_ANSWER_BYTES;
    text = Buffer.from(await readCapped(response, maxBytes, 'the answer')).toString('utf8');
  } catch (error) {
    if (signal.aborted) throw timedOut();
    throw new ChatCompletionError('invalid', (error as Error).message, { cause: error });
  }
  let parsed: {
    choices?: { message?: { content?: unknown } }[];
    usage?: { total_tokens?: unknown };
  };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch (error) {
    throw new ChatCompletionError('invalid', 'the answer is not JSON', { cause: error });
  }
  const content = parsed.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content.trim() === '') {
    throw new ChatCompletionError('invalid', 'the answer holds no message');
  }
  const total = parsed.usage?.total_tokens;
  return {
    content: content.trim(),
    totalTokens: typeof total === 'number' && total >= 0 ? Math.ceil(total) : undefined,
  };
}
