/** Web channel helpers: a bot with a web channel, visitor sessions and messages. */
import { BotStore } from '../../src/shared/bots/store.ts';
import type { EdgeClient, TestApi } from './api.ts';

export const SHOP_ORIGIN = 'https://shop.example.test';

export interface WebTestBot {
  appId: string;
  channelId: string;
  /** The admin API's answer to the creation. */
  created: any;
}

/** Creates a bot with a web channel allowing `origins` (SHOP_ORIGIN by default). */
export async function createWebBot(
  t: EdgeClient,
  options: { name?: string; flow?: unknown; origins?: string[] } = {},
): Promise<WebTestBot> {
  const created = await t.call('POST', '/v2/bots', {
    body: {
      name: options.name ?? 'web bot',
      ...(options.flow === undefined ? {} : { flow: options.flow }),
      channel: { type: 'web', details: { allowed_origins: options.origins ?? [SHOP_ORIGIN] } },
    },
  });
  if (created.status !== 201) throw new Error(`bot not created: ${created.text}`);
  return {
    appId: created.json.app_id,
    channelId: created.json.channels[0].id,
    created: created.json,
  };
}

export interface VisitorSession {
  visitor_id: string;
  token: string;
  expires_at: string;
  conversation_id: string | null;
}

/** Starts (or with `token`, renews) a visitor session from SHOP_ORIGIN. */
export async function startSession(
  t: EdgeClient,
  appId: string,
  token?: string,
): Promise<VisitorSession> {
  const answer = await t.call('POST', `/v2/web/${appId}/sessions`, {
    auth: false,
    headers: { origin: SHOP_ORIGIN },
    body: token ? { token } : {},
  });
  if (answer.status !== 201) throw new Error(`no session: ${answer.text}`);
  return answer.json as VisitorSession;
}

/** Posts a visitor's message (text, button_id or list_row_id) from SHOP_ORIGIN. */
export function postVisitorMessage(
  t: EdgeClient,
  appId: string,
  token: string,
  body: Record<string, unknown>,
): ReturnType<EdgeClient['call']> {
  return t.call('POST', `/v2/callback/web/${appId}`, {
    auth: false,
    headers: { origin: SHOP_ORIGIN, authorization: `Bearer ${token}` },
    body,
  });
}

/** The web channel's token key, as the store opens it (to forge expired tokens). */
export async function webTokenKey(t: TestApi, appId: string): Promise<string> {
  const store = new BotStore({ db: t.api.db, credentialsKey: t.config.credentialsKey! });
  const bot = await store.getBot(appId);
  const secrets = bot?.channels.find((c) => c.type === 'web')?.secrets;
  if (secrets?.type !== 'web') throw new Error('no web channel');
  return secrets.token_key;
}

/** The events URL of a visitor (token in the query, as EventSource sends it). */
export function eventsUrl(
  t: EdgeClient,
  appId: string,
  token: string,
  lastEventId?: string,
): string {
  const last = lastEventId ? `&last_event_id=${encodeURIComponent(lastEventId)}` : '';
  return `${t.url}/v2/web/${appId}/events?token=${encodeURIComponent(token)}${last}`;
}
