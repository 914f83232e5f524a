/**
 * POST /v2/web/<app_id>/sessions: a visitor id and a token for it. With the visitor's current
 * (unexpired) token in the body, the same visitor gets a fresh token; an expired one is refused,
 * so a token cannot be kept alive past its lifetime by someone who found an old one.
 */
import type { Context } from 'koa';
import { randomToken } from '../../shared/crypto.ts';
import { BotwireError } from '../../shared/errors.ts';
import { hasBody, readJson } from '../body.ts';
import type { Edge } from '../edge.ts';
import { allowOrigin, webChannelOf } from './channel.ts';
import { signToken, verifyToken } from './token.ts';

export async function createSession(ctx: Context, edge: Edge, appId: string): Promise<void> {
  const web = await webChannelOf(edge, appId);
  allowOrigin(ctx, edge, web);
  // An empty body is a new visitor, like `{}`.
  const json = !hasBody(ctx)
    ? {}
    : (await readJson(ctx, edge.bodyLimitBytes, edge.bodyTimeoutMs)).json;
  const result = edge.schemas.validate<{ token?: string }>('http/web-session', json);
  if (!result.ok) {
    throw new BotwireError('BW_ERR_SCHEMA', 'the body must be {} or {"token": "<token>"}', {
      details: { problems: result.problems },
    });
  }
  const nowS = Math.floor(Date.now() / 1000);
  const visitorId = result.value.token
    ? verifyToken(web.tokenKey, appId, result.value.token, nowS).visitor_id
    : `v_${randomToken(18)}`;
  const exp = nowS + edge.web.tokenTtlS;
  const conversation = await edge
    .db<{ id: string; channel_id: string; chat_id: string }>('conversations')
    .where({ channel_id: web.channel.id, chat_id: visitorId })
    .first('id');
  ctx.status = 201;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = {
    visitor_id: visitorId,
    token: signToken(web.tokenKey, { app_id: appId, visitor_id: visitorId, exp }),
    expires_at: new Date(exp * 1000).toISOString(),
    conversation_id: conversation?.id ?? null,
  };
}
