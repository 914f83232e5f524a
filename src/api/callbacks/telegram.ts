/**
 * POST /v2/callback/telegram/<app_id>: a Telegram update. The secret header is checked before the
 * body is read; `message`, `edited_message` and `callback_query` updates are published to the
 * `channel` topic once per `update_id`; other update types are answered 200 and dropped.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { chatOrderingKey } from '../../shared/conversation-ref.ts';
import { secretsEqual } from '../../shared/crypto.ts';
import { BotwireError } from '../../shared/errors.ts';
import { readJson } from '../body.ts';
import type { Edge } from '../edge.ts';
import { activeBot } from './lookup.ts';
import { publishOnce, validateCallback } from './accept.ts';

const HANDLED = ['message', 'edited_message', 'callback_query'] as const;

interface TelegramMessage {
  chat: { id: number };
}

interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
  edited_message?: TelegramMessage;
  callback_query?: { from: { id: number }; message?: TelegramMessage };
}

/** The chat an update belongs to: the conversation whose order it must keep. */
function chatOf(update: TelegramUpdate): number | undefined {
  return (
    update.message?.chat.id ??
    update.edited_message?.chat.id ??
    update.callback_query?.message?.chat.id ??
    update.callback_query?.from.id
  );
}

export async function telegramCallback(ctx: Context, edge: Edge, appId: string): Promise<void> {
  const bot = await activeBot(edge, appId);
  const channel = bot.channels.find((c) => c.type === 'telegram');
  if (!channel || channel.secrets.type !== 'telegram') {
    throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'this bot has no telegram channel');
  }
  const secret = ctx.get('x-telegram-bot-api-secret-token') || undefined;
  if (!secretsEqual(secret, channel.secrets.secret_token)) {
    throw new BotwireError(
      'BW_ERR_BAD_SECRET',
      secret
        ? 'the secret token does not match'
        : 'the X-Telegram-Bot-Api-Secret-Token header is missing',
    );
  }
  const body = await readJson(ctx, edge.bodyLimitBytes, edge.bodyTimeoutMs);
  const update = await validateCallback<TelegramUpdate>(edge, 'http/telegram-update', body, {
    platform: 'telegram',
    authentic: true,
    appId,
  });
  const kind = HANDLED.find((k) => update[k] !== undefined);
  if (!kind) {
    ctx.body = { ok: true, ignored: true };
    return;
  }
  const published = await publishOnce(edge, [
    {
      id: `telegram:${appId}:${update.update_id}`,
      message: {
        source: 'telegram',
        turn_id: randomUUID(),
        ordering_key: chatOrderingKey(appId, String(chatOf(update) ?? update.update_id)),
        intent: 'channel_in',
        bot_input: {
          kind: 'update',
          update_kind: kind,
          app_id: appId,
          channel_id: channel.id,
          channel_type: 'telegram',
          received_at: new Date().toISOString(),
          update,
        },
      },
    },
  ]);
  ctx.body = { ok: true, duplicate: published === 0 };
}
