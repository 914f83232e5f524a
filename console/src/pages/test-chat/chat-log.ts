/**
 * What the test chat shows, as a reducer over the visitor's SSE events and its own sends. A sent
 * message shows at once as pending; its echo (`in:<client_message_id>`) takes its place, so it is
 * never shown twice, and a replayed stream (a reload, a second tab) adds nothing already shown.
 * Plain TypeScript (no DOM).
 */
import type { WebEvent } from '../../api/types.ts';
import { fromWebEvent, optionTitles, type MessageView } from '../conversations/message-model.ts';

export type ChatAction =
  | { type: 'event'; event: WebEvent }
  | {
      type: 'sent';
      clientMessageId: string;
      createdAt: string;
      text?: string;
      choice?: { id: string; title: string };
    }
  | { type: 'failed'; clientMessageId: string; error: string };

/** The echo id of a message the visitor sent (the WEB contract's event `id`). */
export function echoKey(clientMessageId: string): string {
  return `in:${clientMessageId}`;
}

export function chatLogReducer(log: readonly MessageView[], action: ChatAction): MessageView[] {
  switch (action.type) {
    case 'sent':
      return [
        ...log,
        {
          key: echoKey(action.clientMessageId),
          side: 'user',
          messageType: action.choice ? 'interactive_reply' : 'text',
          createdAt: action.createdAt,
          delivery: { status: 'pending' },
          ...(action.text !== undefined ? { text: action.text } : {}),
          ...(action.choice ? { choice: action.choice } : {}),
        },
      ];
    case 'failed':
      return log.map((m) =>
        m.key === echoKey(action.clientMessageId) && m.delivery?.status === 'pending'
          ? { ...m, delivery: { status: 'failed', error: action.error } }
          : m,
      );
    case 'event': {
      const view = fromWebEvent(action.event, optionTitles(log));
      const at = log.findIndex((m) => m.key === view.key);
      if (at === -1) return [...log, view];
      const before = log[at]!;
      // The echo of a press names only the option's id; the pending line knew its title.
      const merged: MessageView =
        view.choice && !view.choice.title && before.choice?.title
          ? { ...view, choice: { ...view.choice, title: before.choice.title } }
          : view;
      return [...log.slice(0, at), merged, ...log.slice(at + 1)];
    }
  }
}
