/**
 * A reply's calls for the web channel: each message becomes one append to the visitor's event
 * stream (`shared/web/visitor-stream.ts`), named by its turn and place so that a redelivered turn
 * appends nothing twice. No pace and no circuit breaker: the "platform" is our own Redis, which
 * has no rate limit to respect, and when it fails the consumer's retry is the right answer.
 */
import type { ConversationRef, InternalMessage } from '../shared/messages.ts';
import type { VisitorStreams } from '../shared/web/visitor-stream.ts';
import { PlatformError } from './platform-api.ts';
import { renderWeb } from './render-web.ts';

/** One call of a planned reply (see `send-reply.ts`). */
export interface WebCall {
  seq: string;
  message: InternalMessage;
  send: () => Promise<string>;
}

export function planWeb(
  streams: VisitorStreams | undefined,
  conversation: ConversationRef,
  turnId: string,
  messages: InternalMessage[],
): WebCall[] {
  return messages.map((message, i) => {
    const seq = `${i}.0`;
    const content = renderWeb(message);
    return {
      seq,
      message,
      send: async () => {
        if (!content) {
          throw new PlatformError(
            `a ${message.message_type} message without a URL cannot be shown on the web`,
            false,
            { code: 'unshowable' },
          );
        }
        if (!streams) throw new Error('channel was started without the web visitor streams');
        return streams.append(conversation.app_id, conversation.chat_id, {
          id: `out:${turnId}:${seq}`,
          conversation_id: conversation.conversation_id,
          direction: 'out',
          turn_id: turnId,
          ...content,
          created_at: new Date().toISOString(),
        });
      },
    };
  });
}
