/**
 * The bytes of a user's media file, fetched from the platform with the channel's credentials:
 * Telegram `getFile` (file_id → file_path) then `GET <api>/file/bot<token>/<file_path>`; WhatsApp
 * `GET <api>/<media_id>` (→ a short-lived `url`) then `GET <url>`, both with the access token.
 *
 * Bounded: each request has a timeout, and a file larger than `maxBytes` is refused (not
 * retryably) before or while it downloads. Failures are `BW_ERR_UPSTREAM`, retryable when the
 * platform failed or could not be reached.
 */
import type { BotDirectory } from '../shared/bots/directory.ts';
import type { ChannelSecrets } from '../shared/bots/types.ts';
import { BotwireError } from '../shared/errors.ts';
import { isInline, type ConversationRef, type MediaRef } from '../shared/messages.ts';
import { errorDetail, readCapped, refused, unreachable } from '../shared/http-body.ts';

export interface Downloaded {
  data: Uint8Array;
  mimeType: string;
}

export interface MediaSource {
  download(conversation: ConversationRef, media: MediaRef): Promise<Downloaded>;
}

export interface PlatformMediaOptions {
  directory: Pick<BotDirectory, 'byAppId'>;
  fetch: typeof fetch;
  /** TELEGRAM_API_URL, no trailing slash. */
  telegramApiUrl: string;
  /** WHATSAPP_API_URL, version included, no trailing slash. */
  whatsappApiUrl: string;
  /** Largest file downloaded (bytes): the audio API's own upload limit. @defaultValue 26214400 (25 MiB) */
  maxBytes?: number;
  /** Time for each request, body included (ms). @defaultValue 15000 */
  timeoutMs?: number;
}

/** Telegram voice notes are Ogg Opus; what the platform did not name is taken to be that. */
const DEFAULT_MIME_TYPE = 'audio/ogg';

export class PlatformMedia implements MediaSource {
  readonly #maxBytes: number;

  constructor(private readonly options: PlatformMediaOptions) {
    this.#maxBytes = options.maxBytes ?? 25 * 1024 * 1024;
  }

  async download(conversation: ConversationRef, media: MediaRef): Promise<Downloaded> {
    if (isInline(media)) {
      return {
        data: new Uint8Array(Buffer.from(media.data_base64, 'base64')),
        mimeType: media.mime_type,
      };
    }
    const bot = await this.options.directory.byAppId(conversation.app_id);
    const secrets = bot?.channels.find((c) => c.id === conversation.channel_id)?.secrets;
    if (!secrets) {
      throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'the channel of this media is gone');
    }
    if ('file_id' in media && secrets.type === 'telegram') {
      return this.#telegram(secrets, media.file_id, media.mime_type);
    }
    if ('media_id' in media && secrets.type === 'whatsapp') {
      return this.#whatsapp(secrets, media.media_id, media.mime_type);
    }
    throw new BotwireError(
      'BW_ERR_UNSUPPORTED',
      'only media received on the conversation’s own channel can be downloaded',
    );
  }

  async #telegram(
    secrets: Extract<ChannelSecrets, { type: 'telegram' }>,
    fileId: string,
    mimeType: string | undefined,
  ): Promise<Downloaded> {
    const base = this.options.telegramApiUrl;
    const token = secrets.details.bot_token;
    const what = 'Telegram';
    const info = await this.#get(
      `${base}/bot${token}/getFile?file_id=${encodeURIComponent(fileId)}`,
      {},
      what,
    );
    const body = (await info.json().catch(() => ({}))) as {
      ok?: boolean;
      result?: { file_path?: unknown; file_size?: unknown };
    };
    const path = body.result?.file_path;
    if (body.ok !== true || typeof path !== 'string') {
      throw new BotwireError('BW_ERR_UPSTREAM', 'Telegram getFile gave no file_path', {
        retryable: false,
      });
    }
    this.#checkSize(body.result?.file_size);
    const file = await this.#get(`${base}/file/bot${token}/${path}`, {}, what);
    return {
      data: await readCapped(file, this.#maxBytes, 'the voice message'),
      mimeType: mimeType ?? DEFAULT_MIME_TYPE,
    };
  }

  async #whatsapp(
    secrets: Extract<ChannelSecrets, { type: 'whatsapp' }>,
    mediaId: string,
    mimeType: string | undefined,
  ): Promise<Downloaded> {
    const auth = { authorization: `Bearer ${secrets.details.access_token}` };
    const what = 'WhatsApp';
    const info = await this.#get(
      `${this.options.whatsappApiUrl}/${encodeURIComponent(mediaId)}`,
      auth,
      what,
    );
    const body = (await info.json().catch(() => ({}))) as {
      url?: unknown;
      mime_type?: unknown;
      file_size?: unknown;
    };
    if (typeof body.url !== 'string' || !/^https?:\/\//.test(body.url)) {
      throw new BotwireError('BW_ERR_UPSTREAM', 'WhatsApp gave no media url', { retryable: false });
    }
    this.#checkSize(body.file_size);
    // The url is only served to the same access token (Meta's media CDN checks it).
    const file = await this.#get(body.url, auth, what);
    return {
      data: await readCapped(file, this.#maxBytes, 'the voice message'),
      mimeType:
        (typeof body.mime_type === 'string' ? body.mime_type : undefined) ??
        mimeType ??
        DEFAULT_MIME_TYPE,
    };
  }

  #checkSize(declared: unknown): void {
    if (typeof declared === 'number' && declared > this.#maxBytes) {
      throw new BotwireError(
        'BW_ERR_UPSTREAM',
        `the voice message is larger than ${this.#maxBytes} bytes`,
        { retryable: false, details: { maxBytes: this.#maxBytes } },
      );
    }
  }

  async #get(url: string, headers: Record<string, string>, what: string): Promise<Response> {
    let response: Response;
    try {
      response = await this.options.fetch(url, {
        headers,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
    } catch (error) {
      throw unreachable(what, error);
    }
    if (!response.ok) throw refused(what, response.status, await errorDetail(response));
    return response;
  }
}
