/**
 * Translation behind a small interface; the first adapter speaks the LibreTranslate API
 * (`POST <base>/translate {q, source, target, format, api_key}` → `{translatedText}`), which
 * LibreTranslate itself and several hosted services offer. The base URL comes from
 * TRANSLATE_API_URL, so tests and local instances stand in.
 */
import { BotwireError } from '../shared/errors.ts';
import { storable } from '../shared/pg-text.ts';

export interface Translator {
  translate(text: string, from: string, to: string): Promise<string>;
}

export class LibreTranslate implements Translator {
  constructor(
    private readonly baseUrl: string,
    private readonly options: { apiKey?: string; fetch: typeof fetch; timeoutMs?: number },
  ) {}

  async translate(text: string, from: string, to: string): Promise<string> {
    let response: Response;
    try {
      response = await this.options.fetch(`${this.baseUrl}/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          q: text,
          source: from,
          target: to,
          format: 'text',
          ...(this.options.apiKey ? { api_key: this.options.apiKey } : {}),
        }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
      });
    } catch (error) {
      throw new BotwireError(
        'BW_ERR_UPSTREAM',
        `translation provider unreachable (${(error as Error).name})`,
        { cause: error },
      );
    }
    const body = (await response.json().catch(() => ({}))) as {
      translatedText?: unknown;
      error?: unknown;
    };
    if (!response.ok || typeof body.translatedText !== 'string') {
      throw new BotwireError(
        'BW_ERR_UPSTREAM',
        `translation failed: ${response.status} ${typeof body.error === 'string' ? body.error : ''}`.trim(),
      );
    }
    // The provider's words go into flow's state (jsonb) and the transcript: mended like a user's.
    return storable(body.translatedText);
  }
}
