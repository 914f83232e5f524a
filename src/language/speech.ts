/**
 * Speech behind a small interface; the first adapter speaks the OpenAI audio API, which OpenAI and
 * several self-hosted servers (faster-whisper servers, LocalAI, speaches) offer:
 * `POST <base>/audio/transcriptions` (multipart: file, model, language?) → `{text}`, and
 * `POST <base>/audio/speech` (JSON: model, voice, input, response_format) → audio bytes. The base
 * URL comes from SPEECH_API_URL, so tests and local servers stand in.
 *
 * Failures are `BW_ERR_UPSTREAM`, retryable when the provider failed (5xx, 429, timeout) and not
 * when it refused (other 4xx: an unsupported format, a bad key).
 */
import { BotwireError } from '../shared/errors.ts';
import { storable } from '../shared/pg-text.ts';
import { errorDetail, readCapped, refused, unreachable } from '../shared/http-body.ts';

export interface Speech {
  /**
   * The words in `audio`.
   * @param languageHint the speaker's language (BCP 47) when known; helps short clips.
   */
  transcribe(audio: Uint8Array, mimeType: string, languageHint?: string): Promise<string>;
  /**
   * `text` spoken, as a voice note.
   * @param language the text's language (BCP 47), for providers that pick a voice by it.
   */
  synthesize(text: string, language?: string): Promise<{ audio: Uint8Array; mimeType: string }>;
}

export interface OpenAiSpeechOptions {
  fetch: typeof fetch;
  /** Sent as `Authorization: Bearer`; omitted when empty. */
  apiKey?: string;
  /** Speech-to-text model (SPEECH_STT_MODEL), e.g. `whisper-1`. */
  sttModel: string;
  /** Text-to-speech model (SPEECH_TTS_MODEL), e.g. `tts-1`. */
  ttsModel: string;
  /** Text-to-speech voice (SPEECH_TTS_VOICE), e.g. `alloy`. */
  voice: string;
  /** Time for one transcription, upload included (ms). @defaultValue 60000 */
  transcribeTimeoutMs?: number;
  /** Time for one synthesis, download included (ms). @defaultValue 30000 */
  synthesizeTimeoutMs?: number;
  /** Largest synthesized audio accepted (bytes); larger is refused. @defaultValue 1048576 */
  maxAudioBytes?: number;
}

/**
 * The file name extension the provider judges the format by (OpenAI reads the extension, not the
 * part's content type). Platforms send voice as Ogg Opus; WhatsApp may send AAC, AMR, MP3 or MP4.
 */
const EXTENSIONS: Record<string, string> = {
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'm4a',
  'audio/m4a': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/aac': 'aac',
  'audio/amr': 'amr',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
};

/** `audio/ogg; codecs=opus` → `audio/ogg`. */
export function baseMimeType(mimeType: string): string {
  return mimeType.split(';')[0]!.trim().toLowerCase();
}

export class OpenAiSpeech implements Speech {
  constructor(
    private readonly baseUrl: string,
    private readonly options: OpenAiSpeechOptions,
  ) {}

  async transcribe(audio: Uint8Array, mimeType: string, languageHint?: string): Promise<string> {
    const type = baseMimeType(mimeType);
    const form = new FormData();
    form.append('file', new Blob([audio], { type }), `voice.${EXTENSIONS[type] ?? 'ogg'}`);
    form.append('model', this.options.sttModel);
    form.append('response_format', 'json');
    // The API takes ISO 639-1 (`pt`), not a full tag (`pt-BR`).
    const language = languageHint?.split('-')[0]?.toLowerCase();
    if (language && /^[a-z]{2}$/.test(language)) form.append('language', language);
    const response = await this.#post(
      '/audio/transcriptions',
      form,
      this.options.transcribeTimeoutMs ?? 60_000,
    );
    const body = (await response.json().catch(() => ({}))) as { text?: unknown };
    if (typeof body.text !== 'string') {
      throw new BotwireError('BW_ERR_UPSTREAM', 'the audio API answered without a transcript', {
        retryable: false,
      });
    }
    // Stored like a user's text (flow's state, the transcript): mended like one.
    return storable(body.text.trim());
  }

  async synthesize(text: string): Promise<{ audio: Uint8Array; mimeType: string }> {
    const response = await this.#post(
      '/audio/speech',
      JSON.stringify({
        model: this.options.ttsModel,
        voice: this.options.voice,
        input: text,
        // Ogg Opus: what Telegram shows as a voice note and WhatsApp accepts as audio.
        response_format: 'opus',
      }),
      this.options.synthesizeTimeoutMs ?? 30_000,
    );
    const audio = await readCapped(
      response,
      this.options.maxAudioBytes ?? 1024 * 1024,
      'synthesized speech',
    );
    if (audio.byteLength === 0) {
      throw new BotwireError('BW_ERR_UPSTREAM', 'the audio API answered with no audio', {
        retryable: false,
      });
    }
    return { audio, mimeType: 'audio/ogg' };
  }

  /** POSTs to the API; resolves to a 2xx response, or throws the failure. */
  async #post(path: string, body: FormData | string, timeoutMs: number): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (typeof body === 'string') headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.options.fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw unreachable('the audio API', error);
    }
    if (!response.ok) throw refused('the audio API', response.status, await errorDetail(response));
    return response;
  }
}
