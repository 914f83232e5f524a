/** The bot's outbound messages as a conversation test reads them (`Reply`). */
import type { Reply } from '../../shared/flows/conversation-test-types.ts';
import type { OutMessage } from '../engine/types.ts';

export function replyOf(message: OutMessage): Reply {
  switch (message.message_type) {
    case 'text':
      return { message_type: 'text', text: message.text, options: [] };
    case 'button':
      return {
        message_type: 'button',
        text: message.text,
        options: message.buttons.map((b) => ({ id: b.id, title: b.title })),
      };
    case 'option_list':
      return {
        message_type: 'option_list',
        text: message.text,
        options: message.list.sections.flatMap((s) =>
          s.rows.map((r) => ({ id: r.id, title: r.title })),
        ),
      };
    case 'image':
    case 'document':
      return { message_type: message.message_type, text: message.caption ?? '', options: [] };
  }
}
