/**
 * Voice, when a speech provider is configured: an inbound voice message is downloaded from the
 * platform and transcribed; a reply to a voice message is spoken.
 *
 * Inbound failures: a failure that may pass (the provider's or platform's 5xx, a timeout) is
 * thrown, so the consumer retries the message in place (the conversation's later messages wait)
 * until `attempts` deliveries have failed. Then, or at once for a failure that cannot pass (a
 * refused format, a file too large, an empty transcript), the user is told that their voice
 * message could not be understood; the message is never dead-lettered for a speech failure.
 *
 * Outbound: only plain text messages are spoken; buttons, lists, images and documents stay as
 * they are, so a spoken reply keeps its choices. The voice note replaces the text rather than
 * coming with it: the user chose to speak, two messages per answer would double the platform
 * calls and the chat's pace, and WhatsApp audio takes no caption. The text stays on the message
 * (`text`) for the transcript. A synthesis failure never holds the reply up: that message goes as
 * text. Audio rides inline in the stream entry to `channel`, so a turn's voice notes together are
 * kept under `INLINE_MEDIA_MAX_BYTES`; what does not fit goes as text.
 */
import type { MessageContext } from '../shared/bus/delivery.ts';
import { codeOf, isRetryable } from '../shared/errors.ts';
import {
  INLINE_MEDIA_MAX_BYTES,
  type ConversationRef,
  type InternalMessage,
  type MediaRef,
} from '../shared/messages.ts';
import type { MediaSource } from './media.ts';
import type { Speech } from './speech.ts';

export interface VoiceDeps {
  speech: Speech;
  media: MediaSource;
  /**
   * Deliveries of a voice message that may end in a retryable failure before the user is told it
   * could not be understood; keep it at most CONSUMER_MAX_DELIVERIES. @defaultValue 3
   */
  attempts?: number;
}

export const VOICE_NOT_UNDERSTOOD =
  "Sorry, I couldn't understand your voice message. Please try again, or type your message.";

/** Longest text spoken (characters): the OpenAI speech API's input limit. Longer goes as text. */
export const SPEAK_MAX_CHARS = 4096;

/**
 * Longest transcript passed on (characters), as long as a typed message may be on either platform;
 * a 25 MiB recording could otherwise hold more than a flow message may carry.
 */
export const TRANSCRIPT_MAX_CHARS = 4096;

/**
 * The words of an inbound voice message, or undefined when they cannot be had.
 * @throws the failure, while it is retryable and deliveries remain.
 */
export async function hear(
  voice: VoiceDeps,
  conversation: ConversationRef,
  media: MediaRef,
  context: MessageContext,
): Promise<string | undefined> {
  try {
    const audio = await voice.media.download(conversation, media);
    const text = await voice.speech.transcribe(
      audio.data,
      audio.mimeType,
      conversation.user_language,
    );
    const words = Array.from(text.trim());
    if (words.length === 0) {
      context.log.info('the transcript of a voice message is empty; telling the user');
      return undefined;
    }
    if (words.length > TRANSCRIPT_MAX_CHARS) {
      context.log.info({ chars: words.length }, 'long transcript cut to the longest text message');
    }
    context.log.debug({ bytes: audio.data.byteLength, chars: words.length }, 'voice transcribed');
    return words.slice(0, TRANSCRIPT_MAX_CHARS).join('');
  } catch (error) {
    const retryable = isRetryable(error);
    if (retryable && context.deliveries < (voice.attempts ?? 3)) throw error;
    context.log.warn(
      {
        err: (error as Error).message,
        code: codeOf(error),
        retryable,
        deliveries: context.deliveries,
      },
      'voice message could not be transcribed; telling the user',
    );
    return undefined;
  }
}

/** The turn's plain text messages as voice notes, within the inline size budget. */
export async function speak(
  voice: VoiceDeps,
  messages: InternalMessage[],
  language: string | undefined,
  context: MessageContext,
): Promise<InternalMessage[]> {
  const spoken = await Promise.all(
    messages.map(async (message) => {
      if (message.message_type !== 'text') return undefined;
      if (message.text.trim() === '' || message.text.length > SPEAK_MAX_CHARS) return undefined;
      try {
        return await voice.speech.synthesize(message.text, language);
      } catch (error) {
        context.log.warn(
          { err: (error as Error).message, code: codeOf(error) },
          'speech synthesis failed; the message goes as text',
        );
        return undefined;
      }
    }),
  );
  let budget = INLINE_MEDIA_MAX_BYTES;
  return messages.map((message, i): InternalMessage => {
    const audio = spoken[i];
    if (!audio || message.message_type !== 'text') return message;
    if (audio.audio.byteLength > budget) {
      context.log.info(
        { bytes: audio.audio.byteLength, budget },
        "voice note over the turn's inline budget; the message goes as text",
      );
      return message;
    }
    budget -= audio.audio.byteLength;
    return {
      message_type: 'audio',
      media: {
        data_base64: Buffer.from(audio.audio).toString('base64'),
        mime_type: audio.mimeType,
      },
      text: message.text,
    };
  });
}
