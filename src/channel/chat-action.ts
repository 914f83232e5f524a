/**
 * chat_action: a passing action shown to the user while a person writes (an agent typing during
 * a handoff). Telegram: `sendChatAction` (shown for about five seconds, or until the next
 * message). Web: a `typing` event on the visitor's stream. WhatsApp has no such call: nothing.
 *
 * Best effort: an action that fails is logged and dropped, never retried. By the time a retry
 * ran the agent would have typed on or sent the message, and a late "typing..." misleads.
 */
import type { BotDirectory } from '../shared/bots/directory.ts';
import type { MessageContext } from '../shared/bus/delivery.ts';
import type { ConversationRef } from '../shared/messages.ts';
import type { VisitorStreams } from '../shared/web/visitor-stream.ts';
import type { TelegramApi } from './platform-api.ts';

export interface ChatAction {
  source: string;
  turn_id: string;
  intent: 'chat_action';
  conversation: ConversationRef;
  action: 'typing';
}

export interface ChatActionDeps {
  directory: BotDirectory;
  telegram: TelegramApi;
  web?: VisitorStreams;
}

export async function handleChatAction(
  deps: ChatActionDeps,
  input: ChatAction,
  context: MessageContext,
): Promise<void> {
  const { conversation } = input;
  const bot = await deps.directory.byAppId(conversation.app_id);
  const channel = bot?.channels.find((c) => c.id === conversation.channel_id);
  if (!channel || channel.unreadable) return;
  const secrets = channel.secrets;
  try {
    if (secrets.type === 'telegram') {
      await deps.telegram.call(secrets.details.bot_token, 'sendChatAction', {
        chat_id: conversation.chat_id,
        action: input.action,
      });
    } else if ((secrets.type === 'web' || secrets.type === 'console') && deps.web) {
      await deps.web.signal(conversation.app_id, conversation.chat_id, {
        event: input.action,
        conversation_id: conversation.conversation_id,
        at: new Date().toISOString(),
      });
    }
  } catch (error) {
    context.log.info({ err: (error as Error).message }, 'chat action not shown; dropped');
  }
}
