/**
 * Registers a Telegram channel's webhook: `setWebhook` with the callback URL and the channel's
 * secret token, so Telegram signs every update with it. Used by the admin API and
 * scripts/set-webhook.sh.
 */
import type { BotStore } from '../../shared/bots/store.ts';
import { BotwireError } from '../../shared/errors.ts';
import { callbackUrl } from './present.ts';
import { failureCause } from '../../shared/failure-cause.ts';

export interface WebhookResult {
  url: string;
  registered_at: Date;
  telegram: { ok: boolean; description?: string };
}

/** Update types botwire handles; Telegram will not send others. */
const ALLOWED_UPDATES = ['message', 'edited_message', 'callback_query'];

export async function registerTelegramWebhook(
  deps: { store: BotStore; fetch: typeof fetch; telegramApiUrl: string; publicBaseUrl: string },
  appId: string,
  channelId: string,
): Promise<WebhookResult> {
  const bot = await deps.store.getBot(appId);
  if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
  const channel = bot.channels.find((c) => c.id === channelId);
  if (!channel)
    throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'the bot has no channel with this id');
  if (channel.secrets.type !== 'telegram') {
    throw new BotwireError(
      'BW_ERR_UNSUPPORTED',
      'webhooks are registered only for telegram channels; set the WhatsApp callback URL in the Meta app dashboard',
    );
  }
  const url = callbackUrl(deps.publicBaseUrl, channel);
  const form = new URLSearchParams({
    url,
    secret_token: channel.secrets.secret_token,
    allowed_updates: JSON.stringify(ALLOWED_UPDATES),
  });
  let response: Response;
  try {
    response = await deps.fetch(
      `${deps.telegramApiUrl}/bot${channel.secrets.details.bot_token}/setWebhook`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        signal: AbortSignal.timeout(10_000),
      },
    );
  } catch (error) {
    // The request URL holds the bot token: the message keeps only the cause's code, never its
    // text (the original stays on `cause`; fetch's errors do not quote the URL).
    throw new BotwireError(
      'BW_ERR_UPSTREAM',
      `Telegram could not be reached (${failureCause(error)})`,
      { cause: error },
    );
  }
  // Something answered: what it said is reported as such, not as "could not be reached" (a
  // proxy's error page, a wrong TELEGRAM_API_URL answering 404 with HTML).
  let answer: { ok?: boolean; description?: string };
  try {
    answer = (await response.json()) as typeof answer;
  } catch (error) {
    throw new BotwireError(
      'BW_ERR_UPSTREAM',
      `Telegram answered HTTP ${response.status} without JSON (is TELEGRAM_API_URL right?)`,
      { cause: error, details: { telegram: { status: response.status } } },
    );
  }
  if (answer.ok !== true) {
    throw new BotwireError(
      'BW_ERR_UPSTREAM',
      `Telegram refused setWebhook: ${answer.description ?? 'no reason given'}`,
      {
        details: { telegram: { ok: false, description: answer.description } },
      },
    );
  }
  const registeredAt = await deps.store.markWebhookRegistered(channel.id);
  return {
    url,
    registered_at: registeredAt,
    telegram: { ok: true, description: answer.description },
  };
}
