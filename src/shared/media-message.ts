/**
 * An image or document to send, as flows and agents write it (`url`, `caption`, `filename`), in the
 * internal message shape `channel` renders (`media.url`). One conversion for the bot's messages
 * (flow's outbox) and an agent's replies (api's handoff routes).
 */
import type { InternalMessage } from './messages.ts';

/** An image or a document as flows and agents write it. */
export type OutgoingMedia =
  | { message_type: 'image'; url: string; caption?: string }
  | { message_type: 'document'; url: string; caption?: string; filename?: string };

/** `media` as the internal message `channel` sends. */
export function mediaMessage(media: OutgoingMedia): InternalMessage {
  const caption = media.caption ? { caption: media.caption } : {};
  if (media.message_type === 'image') {
    return { message_type: 'image', media: { url: media.url }, ...caption };
  }
  return {
    message_type: 'document',
    media: { url: media.url },
    ...caption,
    ...(media.filename ? { filename: media.filename } : {}),
  };
}
