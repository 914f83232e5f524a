/**
 * The live `message` event of each transcript row channel writes, in both directions. Told by the
 * store once the row committed (`batchedRecords`), so a row written
 * again on a redelivery is not announced twice; an event lost on the way is not sent again
 * (events are best effort, docs/events.md).
 */
import type { EventPublisher } from '../shared/events/publisher.ts';
import type { InboundInput, OutboundRecord, RecordedInbound, WrittenRow } from './store.ts';

export interface TranscriptEvents {
  inbound: (input: InboundInput, recorded: RecordedInbound & { written: WrittenRow }) => void;
  outbound: (record: OutboundRecord, written: WrittenRow) => void;
}

export function transcriptEvents(events: EventPublisher): TranscriptEvents {
  return {
    inbound: ({ bot, channel, inbound }, { conversation, written }) =>
      events.publish('message', {
        app_id: bot.appId,
        conversation_id: conversation.conversation_id,
        channel_type: channel.type,
        direction: 'in',
        message_id: written.messageId,
        message_type: inbound.message.message_type,
        created_at: written.createdAt.toISOString(),
      }),
    outbound: (record, written) => {
      // Set by every sender of this process (send-reply.ts); a row without them is not announced.
      if (!record.appId || !record.channelType) return;
      events.publish('message', {
        app_id: record.appId,
        conversation_id: record.conversationId,
        channel_type: record.channelType,
        direction: 'out',
        message_id: written.messageId,
        message_type: record.message.message_type,
        status: record.outcome.status,
        ...(record.sentBy ? { sent_by: record.sentBy } : {}),
        created_at: written.createdAt.toISOString(),
      });
    },
  };
}
