/**
 * The echo bots of the pipeline bench, created through the admin API as an operator would: the
 * bot with its flow and Telegram channel, then its webhook, whose secret token the stand-in
 * platform receives in `setWebhook`.
 */
import { randomBytes } from 'node:crypto';
import type { PlatformStandIn } from './platform.ts';

/** Every message is an answer: the start state waits at once, then echoes and waits again. */
export const ECHO_FLOW = {
  version: 1,
  start: 'listen',
  states: {
    listen: { wait: { store: 'said' }, next: 'echo' },
    echo: { actions: [{ send: { text: 'echo: {{said}}' } }], next: 'listen' },
  },
};

/** What a user needs to talk to a bot: its callback path and webhook secret. */
export interface BotAddress {
  path: string;
  secret: string;
}

/** POSTs to the admin API with the key; answers the JSON of a 200 or 201, throws on anything else. */
export async function adminPost<T>(
  origin: string,
  key: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status !== 200 && response.status !== 201) {
    throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  }
  return (await response.json()) as T;
}

/** Creates `count` echo bots with a Telegram channel each and registers their webhooks. */
export async function createEchoBots(
  apiOrigin: string,
  adminKey: string,
  platform: PlatformStandIn,
  count: number,
): Promise<BotAddress[]> {
  type Created = { app_id: string; channels: { id: string }[] };
  const bots: BotAddress[] = [];
  for (let b = 0; b < count; b += 1) {
    const token = `${700_000_000 + b}:${randomBytes(26).toString('base64url')}`;
    const created = await adminPost<Created>(apiOrigin, adminKey, '/v2/bots', {
      name: `bench echo ${b}`,
      flow: ECHO_FLOW,
      channel: { type: 'telegram', details: { bot_token: token } },
    });
    const channelId = created.channels[0]?.id;
    if (!channelId) throw new Error('the created bot has no channel');
    await adminPost(
      apiOrigin,
      adminKey,
      `/v2/bots/${created.app_id}/channels/${channelId}/webhook`,
    );
    const secret = platform.webhookSecrets.get(token);
    if (!secret) throw new Error('the stand-in platform got no setWebhook with a secret token');
    bots.push({ path: `/v2/callback/telegram/${created.app_id}`, secret });
  }
  return bots;
}
