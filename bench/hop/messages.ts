/** What the hop bench feeds and forwards: a Telegram text as the edge publishes it, and what channel makes of it for flow. */

/** What a consumer process reports when it has handled every message. */
export interface HopReport {
  /** CPU (user + system) from the first message handled to the last, in µs. */
  cpuUs: number;
}

const APP_ID = '4a8d2839-0230-4b64-b640-b633154e4777';
const CHANNEL_ID = '853a18c8-6721-44ba-92c2-febaf6b8c499';

/** The i-th `channel_in` message; a thousand users, so a thousand ordering keys. */
export function channelIn(i: number, turnId: string): Record<string, unknown> {
  const user = 500_000_000 + (i % 1000);
  return {
    source: 'telegram',
    turn_id: turnId,
    ordering_key: `${APP_ID}:${user}`,
    intent: 'channel_in',
    bot_input: {
      kind: 'update',
      update_kind: 'message',
      app_id: APP_ID,
      channel_id: CHANNEL_ID,
      channel_type: 'telegram',
      received_at: new Date().toISOString(),
      update: {
        update_id: 1_000_000 + i,
        message: {
          message_id: 1_000_000 + i,
          date: 1_795_497_882,
          chat: { id: user, type: 'private' },
          from: { id: user, first_name: 'Bench' },
          text: `hello ${i}`,
        },
      },
    },
  };
}

/** The `user_input` message for flow that a hop publishes for each message it reads. */
export function flowMessage(input: {
  turn_id: string;
  ordering_key: string;
}): Record<string, unknown> {
  const chat = input.ordering_key.slice(APP_ID.length + 1);
  return {
    source: 'channel',
    turn_id: input.turn_id,
    ordering_key: input.ordering_key,
    intent: 'user_input',
    conversation: {
      app_id: APP_ID,
      channel_id: CHANNEL_ID,
      channel_type: 'telegram',
      conversation_id: '61f54cda-5fce-4f62-9a8b-aae5da92eda8',
      chat_id: chat,
      user_pid: `telegram:${chat}`,
      bot_language: 'en',
      user_language: 'en',
    },
    message: { message_type: 'text', text: 'hello' },
    original_text: 'hello',
    detected_language: 'en',
    translation: 'none',
  };
}
