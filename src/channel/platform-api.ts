/**
 * Thin HTTP adapters for the Telegram Bot API and the WhatsApp Cloud API, with one failure model:
 * a `PlatformError` says whether trying again can help and how long the platform asked to wait.
 * Base URLs come from config (TELEGRAM_API_URL, WHATSAPP_API_URL) so tests and emulators stand in.
 */
import { failureCause } from '../shared/failure-cause.ts';
import type { JsonPost } from './json-post.ts';

export class PlatformError extends Error {
  override name = 'PlatformError';
  /** Seconds the platform asked us to wait (Telegram 429 `retry_after`). */
  readonly retryAfterS: number | undefined;
  readonly status: number | undefined;
  /**
   * What the platform refused with, stable and short, as analytics counts send failures: the
   * WhatsApp error code (`131047`), else the HTTP status (`403`), else ours (`unshowable`).
   */
  readonly code: string | undefined;
  constructor(
    message: string,
    readonly retryable: boolean,
    details: {
      retryAfterS?: number | undefined;
      status?: number;
      code?: string;
      /** What the HTTP client threw, when the call got no answer. */
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.retryAfterS = details.retryAfterS;
    this.status = details.status;
    this.code = details.code ?? (details.status === undefined ? undefined : String(details.status));
  }
}

export interface PlatformApiOptions {
  /** For multipart uploads, and for every call when `post` is not given. */
  fetch: typeof fetch;
  /** JSON calls over keep-alive node:http (`json-post.ts`); fetch is used when absent. */
  post?: JsonPost;
  /** Per-request timeout (ms). @defaultValue 10000 */
  timeoutMs?: number;
}

/** A file sent in a multipart call: a voice note botwire made. */
export interface UploadFile {
  data: Uint8Array;
  mimeType: string;
  filename: string;
}

/** `fields` and `file` as multipart/form-data; objects among the fields as JSON (the Bot API reads them so). */
export function formOf(fields: Record<string, unknown>, name: string, file: UploadFile): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    form.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  form.append(name, new Blob([file.data], { type: file.mimeType }), file.filename);
  return form;
}

/** POSTs `body` as JSON, or as multipart when it is a FormData (fetch sets its content type). */
async function post(
  options: PlatformApiOptions,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const multipart = body instanceof FormData;
  if (options.post && !multipart) {
    let response: { status: number; text: string };
    try {
      response = await options.post(
        url,
        JSON.stringify(body),
        headers,
        options.timeoutMs ?? 10_000,
      );
    } catch (error) {
      // The URL may hold a bot token: report the cause's code only.
      throw unreachable(error);
    }
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(response.text) as Record<string, unknown>;
    } catch {
      // A proxy's HTML error page: the status says enough.
    }
    return { status: response.status, json };
  }
  let response: Response;
  try {
    response = await options.fetch(url, {
      method: 'POST',
      headers: multipart ? headers : { 'content-type': 'application/json', ...headers },
      body: multipart ? body : JSON.stringify(body),
      // Uploads carry up to 1 MiB: give them more time than a JSON call.
      signal: AbortSignal.timeout((options.timeoutMs ?? 10_000) * (multipart ? 3 : 1)),
    });
  } catch (error) {
    // The URL may hold a bot token: report the cause's code only.
    throw unreachable(error);
  }
  let json: Record<string, unknown> = {};
  try {
    json = (await response.json()) as Record<string, unknown>;
  } catch {
    // A proxy's HTML error page: the status says enough.
  }
  return { status: response.status, json };
}

/** A call that got no answer: retryable, with the cause's code (ENOTFOUND, timeout, ...). */
function unreachable(error: unknown): PlatformError {
  const code = failureCause(error);
  return new PlatformError(`the platform could not be reached (${code})`, true, { cause: error });
}

function classify(
  status: number,
  description: string,
  details: { retryAfterS?: number | undefined; code?: string } = {},
): PlatformError {
  const retryable = status === 429 || status >= 500 || status === 408;
  return new PlatformError(`${status}: ${description}`, retryable, { ...details, status });
}

export class TelegramApi {
  constructor(
    private readonly baseUrl: string,
    private readonly options: PlatformApiOptions,
  ) {}

  /** Calls a Bot API method (as multipart when `body` is a FormData); resolves to its `result`. */
  async call(
    token: string,
    method: string,
    body: Record<string, unknown> | FormData,
  ): Promise<unknown> {
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
      { retryAfterS: parameters?.retry_after },
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
    throw whatsappFailure(status, json);
  }

  /** Uploads a media file (`POST /<phone_number_id>/media`); resolves to its media id. */
  async upload(phoneNumberId: string, accessToken: string, file: UploadFile): Promise<string> {
    const form = formOf({ messaging_product: 'whatsapp', type: file.mimeType }, 'file', file);
    const { status, json } = await post(
      this.options,
      `${this.baseUrl}/${phoneNumberId}/media`,
      form,
      { authorization: `Bearer ${accessToken}` },
    );
    if (status >= 200 && status < 300 && typeof json.id === 'string') return json.id;
    throw whatsappFailure(status, json);
  }
}

function whatsappFailure(status: number, json: Record<string, unknown>): PlatformError {
  const error = json.error as { message?: string; code?: number } | undefined;
  // 130429: throughput limit; 131056: pair rate limit — both say "slow down", not "give up".
  const throttled = error?.code === 130429 || error?.code === 131056 || error?.code === 80007;
  return classify(throttled ? 429 : status, error?.message ?? 'no description', {
    ...(typeof error?.code === 'number' ? { code: String(error.code) } : {}),
  });
}
