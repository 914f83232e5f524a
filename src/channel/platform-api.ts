/**
 * Thin HTTP adapters for the Telegram Bot API and the WhatsApp Cloud API, with one failure model:
 * a `PlatformError` says whether trying again can help and how long the platform asked to wait.
 * Base URLs come from config (TELEGRAM_API_URL, WHATSAPP_API_URL) so tests and emulators stand in.
 */

export class PlatformError extends Error {
  override name = 'PlatformError';
  constructor(
    message: string,
    readonly retryable: boolean,
    /** Seconds the platform asked us to wait (Telegram 429 `retry_after`). */
    readonly retryAfterS?: number,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface PlatformApiOptions {
  fetch: typeof fetch;
  /** Per-request timeout (ms). @defaultValue 10000 */
  timeoutMs?: number;
}

async function post(
  options: PlatformApiOptions,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await options.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    // The URL may hold a bot token: report the kind of failure only.
    throw new PlatformError(`the platform could not be reached (${(error as Error).name})`, true);
  }
  let json: Record<string, unknown> = {};
  try {
    json = (await response.json()) as Record<string, unknown>;
  } catch {
    // A proxy's HTML error page: the status says enough.
  }
  return { status: response.status, json };
}

function classify(status: number, description: string, retryAfterS?: number): PlatformError {
  const retryable = status === 429 || status >= 500 || status === 408;
  return new PlatformError(`${status}: ${description}`, retryable, retryAfterS, status);
}

export class TelegramApi {
  constructor(
    private readonly baseUrl: string,
    private readonly options: PlatformApiOptions,
  ) {}

  /** Calls a Bot API method; resolves to its `result`. */
  async call(token: string, method: string, body: Record<string, unknown>): Promise<unknown> {
    const { status, json } = await post(
      this.options,
      `${this.baseUrl}/bot${token}/${method}`,
      body,
    );
    if (status === 200 && json.ok === true) return json.result;
    const parameters = json.parameters as { retry_after?: number } | undefined;
    throw classify(
      status,
      typeof json.description === 'string' ? json.description : 'no description',
      parameters?.retry_after,
    );
  }
}

export class WhatsAppApi {
  constructor(
    private readonly baseUrl: string,
    private readonly options: PlatformApiOptions,
  ) {}

  /** Sends one message; resolves to the platform's message id. */
  async send(
    phoneNumberId: string,
    accessToken: string,
    body: Record<string, unknown>,
  ): Promise<string> {
    const { status, json } = await post(
      this.options,
      `${this.baseUrl}/${phoneNumberId}/messages`,
      body,
      {
        authorization: `Bearer ${accessToken}`,
      },
    );
    const messages = json.messages as { id?: string }[] | undefined;
    if (status >= 200 && status < 300 && messages?.[0]?.id) return messages[0].id;
    const error = json.error as { message?: string; code?: number } | undefined;
    // 130429: throughput limit; 131056: pair rate limit — both say "slow down", not "give up".
    const throttled = error?.code === 130429 || error?.code === 131056 || error?.code === 80007;
    throw classify(throttled ? 429 : status, error?.message ?? 'no description');
  }
}
