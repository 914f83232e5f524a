/**
 * Stand-ins for voice tests (nock): a Telegram bot whose voice files can be fetched and which
 * records every send, an OpenAI-compatible audio API, and WhatsApp callback bodies.
 */
import nock from 'nock';
import { TELEGRAM_TOKEN, whatsappChange } from './api.ts';

export const TG = 'https://telegram.example.test';
export const SPEECH = 'https://speech.example.test';
export const SPEECH_KEY = 'speech-key';

/** One call the stand-in platform received. */
export interface Call {
  /** The Bot API method (`sendMessage`, `sendVoice`). */
  path: string;
  /** Multipart as sent, JSON as text. */
  body: string;
}

/** A request body as nock hands it over: multipart as a string, JSON parsed. */
export const asText = (body: unknown): string =>
  typeof body === 'string' ? body : JSON.stringify(body);

/**
 * Telegram: `getFile` and the download of `fileId` (bytes `OggS-<fileId>`, `times` times), and
 * every sendMessage/sendVoice, recorded in the returned array; `refuseVoice` answers sendVoice as
 * for a user who does not accept voice notes.
 */
export function stubTelegram(
  fileId: string,
  { times = 1, fileSize = 11, refuseVoice = false } = {},
): Call[] {
  const calls: Call[] = [];
  nock(TG)
    .get(`/bot${TELEGRAM_TOKEN}/getFile`)
    .query({ file_id: fileId })
    .times(times)
    .reply(200, {
      ok: true,
      result: { file_id: fileId, file_size: fileSize, file_path: `voice/${fileId}.oga` },
    })
    .get(`/file/bot${TELEGRAM_TOKEN}/voice/${fileId}.oga`)
    .times(times)
    .reply(200, Buffer.from(`OggS-${fileId}`))
    .post(/\/bot[^/]+\/send(Message|Voice)$/)
    .times(10)
    .reply((uri, body) => {
      const path = uri.slice(uri.lastIndexOf('/') + 1);
      calls.push({ path, body: asText(body) });
      if (refuseVoice && path === 'sendVoice') {
        return [400, { ok: false, description: 'Bad Request: VOICE_MESSAGES_FORBIDDEN' }];
      }
      return [200, { ok: true, result: { message_id: calls.length } }];
    });
  return calls;
}

/** The transcription endpoint, answering `answers` in turn; the request bodies it got. */
export function stubTranscriptions(answers: [number, Record<string, unknown>][]): string[] {
  const bodies: string[] = [];
  for (const [status, answer] of answers) {
    nock(SPEECH)
      .post('/v1/audio/transcriptions')
      .matchHeader('authorization', `Bearer ${SPEECH_KEY}`)
      .reply((_uri, body) => (bodies.push(asText(body)), [status, answer]));
  }
  return bodies;
}

/** The speech endpoint, saying `input` as the bytes of `audio`. */
export function stubSpeech(input: string, audio: string): nock.Scope {
  return nock(SPEECH)
    .post('/v1/audio/speech', { model: 'tts-1', voice: 'alloy', input, response_format: 'opus' })
    .matchHeader('authorization', `Bearer ${SPEECH_KEY}`)
    .reply(200, Buffer.from(audio), { 'content-type': 'audio/ogg' });
}

/** A WhatsApp callback body holding one message from `from` to `number`. */
export function whatsappMessage(
  number: string,
  from: string,
  id: string,
  message: Record<string, unknown>,
): Record<string, unknown> {
  return whatsappChange(
    number,
    { messages: [{ from, id, timestamp: '1', ...message }] },
    { entryId: 'WABA', displayNumber: '1', contacts: [{ wa_id: from, profile: { name: 'Ana' } }] },
  );
}
