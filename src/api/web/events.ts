/**
 * GET /v2/web/<app_id>/events: the visitor's event stream as Server-Sent Events (visitor-hub.ts).
 * EventSource cannot send headers, so the token may come as `?token=`; the position as the
 * `Last-Event-ID` header (which EventSource sends when it reconnects) or `?last_event_id=`. The
 * console's test chats are served the same way (`streamEvents`), under the console's session.
 */
import type { Context } from 'koa';
import { BotwireError } from '../../shared/errors.ts';
import { isStreamId } from '../../shared/stream-ids.ts';
import { visitorStreamKey } from '../../shared/web/visitor-stream.ts';
import type { Edge } from '../edge.ts';
import { allowOrigin, webChannelOf } from './channel.ts';
import type { StreamOwner } from './stream-slots.ts';
import { bearerOf, verifyToken } from './token.ts';

function queryString(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export async function webEvents(ctx: Context, edge: Edge, appId: string): Promise<void> {
  const web = await webChannelOf(edge, appId);
  allowOrigin(ctx, edge, web);
  const token = queryString(ctx, 'token') ?? bearerOf(ctx.get('authorization'));
  const claims = verifyToken(web.tokenKey, appId, token, Math.floor(Date.now() / 1000));
  streamEvents(ctx, edge, { appId, visitorId: claims.visitor_id, tokenKey: web.tokenKey });
}

/**
 * Answers with the event stream of chat `owner.visitorId` of bot `owner.appId` (a web visitor's,
 * or a test chat's), from the request's `Last-Event-ID` or `?last_event_id=`.
 * @throws BotwireError `BW_ERR_SCHEMA` for a position that is not a stream id.
 */
export function streamEvents(ctx: Context, edge: Edge, owner: StreamOwner): void {
  const last = ctx.get('last-event-id') || queryString(ctx, 'last_event_id') || '0-0';
  if (!isStreamId(last)) {
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      'Last-Event-ID must be an event id (<ms>-<seq>, each part at most 2^64 - 1)',
      {
        details: {
          problems: [
            { path: 'last_event_id', message: 'must be <ms>-<seq>, each part at most 2^64 - 1' },
          ],
        },
      },
    );
  }
  const body = edge.web.hub.open(
    visitorStreamKey(edge.prefix, owner.appId, owner.visitorId),
    last,
    owner,
  );
  // The stream stays open: no idle timeout on the socket, and every event sent as written.
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-store');
  // Proxies such as nginx would otherwise buffer the stream.
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = body;
}
