/**
 * POST /v2/callback/web/<app_id>: a web visitor's message, authenticated by their token and
 * published to the `channel` topic once per (bot, visitor, client message id), through the same
 * per-bot backpressure as the other platforms' callbacks.
 */
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { chatOrderingKey } from '../../shared/conversation-ref.ts';
import { readJson } from '../body.ts';
import type { Edge } from '../edge.ts';
import { publishOnce, validateCallback } from '../callbacks/accept.ts';
import { allowOrigin, webChannelOf } from './channel.ts';
import { bearerOf, verifyToken } from './token.ts';

interface WebMessage {
  client_message_id: string;
  text?: string;
  button_id?: string;
  list_row_id?: string;
}

export async function webCallback(ctx: Context, edge: Edge, appId: string): Promise<void> {
  const web = await webChannelOf(edge, appId);
  allowOrigin(ctx, edge, web);
  const claims = verifyToken(
    web.tokenKey,
    appId,
    bearerOf(ctx.get('authorization')),
    Math.floor(Date.now() / 1000),
  );
  const body = await readJson(ctx, edge.bodyLimitBytes, edge.bodyTimeoutMs);
  // Not quarantined when invalid: the visitor's browser is told and can send it again.
  const message = await validateCallback<WebMessage>(edge, 'http/web-message', body, {
    platform: 'web',
    authentic: false,
    appId,
  });
  const visitorId = claims.visitor_id;
  const published = await publishOnce(edge, [
    {
      id: `web:${appId}:${visitorId}:${message.client_message_id}`,
      message: {
        source: 'web',
        turn_id: randomUUID(),
        ordering_key: chatOrderingKey(appId, visitorId),
        intent: 'channel_in',
        bot_input: {
          kind: 'web',
          app_id: appId,
          channel_id: web.channel.id,
          channel_type: 'web',
          received_at: new Date().toISOString(),
          web: { visitor_id: visitorId, ...message },
        },
      },
    },
  ]);
  ctx.status = 202;
  ctx.body = { accepted: true, duplicate: published === 0 };
}
