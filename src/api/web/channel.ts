/**
 * What every web route starts with: the bot (known and active, as for every callback), its web
 * channel, and the request's origin checked against the channel's. The service's own origin
 * (PUBLIC_BASE_URL) is always allowed, so the console's test chat works with any bot.
 *
 * A request without an `Origin` header is not a browser's cross-origin call (a server, curl, a
 * same-origin GET); the origin check is a browser protection, so it passes without CORS headers.
 * Allowed origins get `Access-Control-Allow-Origin` on every answer, errors included, so the
 * widget can read why it was refused (an expired token, say).
 */
import type { Context } from 'koa';
import type { ChannelRecord, WebDetails } from '../../shared/bots/types.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';
import { activeBot } from '../callbacks/lookup.ts';

/** A web channel with its opened secrets. */
export interface WebChannel {
  channel: ChannelRecord;
  details: WebDetails;
  /** HMAC key of the channel's visitor tokens (base64url). */
  tokenKey: string;
}

/** The bot's web channel. @throws BW_ERR_UNKNOWN_BOT, BW_ERR_BOT_INACTIVE, BW_ERR_UNKNOWN_CHANNEL */
export async function webChannelOf(edge: Edge, appId: string): Promise<WebChannel> {
  const bot = await activeBot(edge, appId);
  const channel = bot.channels.find((c) => c.type === 'web');
  if (!channel) throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'this bot has no web channel');
  const secrets = channel.secrets;
  if (secrets.type !== 'web')
    throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'this bot has no web channel');
  return { channel, details: secrets.details, tokenKey: secrets.token_key };
}

/**
 * Checks the request's `Origin` against the channel and sets the CORS answer headers.
 * @throws BotwireError `BW_ERR_ORIGIN_REFUSED` for an origin that is not allowed.
 */
export function allowOrigin(ctx: Context, edge: Edge, web: WebChannel): void {
  ctx.vary('Origin');
  const origin = ctx.get('origin');
  if (!origin) return;
  const own = new URL(edge.publicBaseUrl).origin;
  if (origin !== own && !web.details.allowed_origins.includes(origin)) {
    throw new BotwireError(
      'BW_ERR_ORIGIN_REFUSED',
      `the origin ${origin.slice(0, 200)} is not allowed for this bot's web channel`,
    );
  }
  ctx.set('Access-Control-Allow-Origin', origin);
}

/** Answers a CORS preflight of a web route for an allowed origin. */
export async function preflight(ctx: Context, edge: Edge, appId: string): Promise<void> {
  allowOrigin(ctx, edge, await webChannelOf(edge, appId));
  ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, Last-Event-ID');
  // Browsers cap this (Chrome at 2 h); 10 minutes keeps an origin removed from the channel from
  // being trusted long.
  ctx.set('Access-Control-Max-Age', '600');
  ctx.status = 204;
}
