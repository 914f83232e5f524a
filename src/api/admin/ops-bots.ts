/**
 * `GET /v2/ops/bots`: what waits for each bot now, so Operations tells the truth when a platform
 * fails (docs/operations.md): the bot's backlog as the edge's backpressure counts it (its turns in
 * flight plus its parked replies, `shared/bot-turns.ts`), and per channel the replies parked
 * behind its circuit breaker, whether the breaker is open and for how long yet, and the failed
 * platform calls in its window (src/channel/breaker.ts). Bots with something waiting come first.
 */
import type { Router } from '@koa/router';
import { botBacklog, breakerKeys } from '../../shared/bot-turns.ts';
import type { Edge } from '../edge.ts';
import { principalOf } from './principal.ts';

interface ChannelAtWork {
  id: string;
  type: string;
  parked: number;
  breaker: 'open' | 'closed';
  /** How long the breaker stays open yet (ms); 0 when closed. */
  open_ms: number;
  /** Failed platform calls in the breaker's window. */
  failures: number;
}

export interface BotAtWork {
  app_id: string;
  name: string;
  backlog: number;
  channels: ChannelAtWork[];
}

async function channelAtWork(
  edge: Edge,
  channel: { id: string; type: string },
): Promise<ChannelAtWork> {
  const keys = breakerKeys(edge.prefix, channel.id);
  const [parked, openMs, failures] = await Promise.all([
    edge.redis.xlen(keys.parked),
    edge.redis.pttl(keys.open),
    edge.redis.get(keys.fails),
  ]);
  return {
    id: channel.id,
    type: channel.type,
    parked: Number(parked),
    breaker: openMs > 0 ? 'open' : 'closed',
    open_ms: Math.max(0, openMs),
    failures: Number(failures ?? 0),
  };
}

export function opsBotRoutes(router: Router, edge: Edge): void {
  router.get('/v2/ops/bots', async (ctx) => {
    const assigned = principalOf(ctx).bots;
    const bots = (await edge.store.loadAll()).filter(
      (bot) => assigned === 'all' || assigned.includes(bot.appId),
    );
    const { horizonMs } = edge.botBacklog;
    const rows = await Promise.all(
      bots.map(async (bot): Promise<BotAtWork> => {
        // The console channel's test chats count too: they share the bot's pipeline.
        const ids = bot.channels.map((c) => c.id);
        const [backlog, channels] = await Promise.all([
          botBacklog(edge.redis, edge.prefix, bot.appId, ids, horizonMs),
          Promise.all(bot.channels.map((c) => channelAtWork(edge, c))),
        ]);
        return { app_id: bot.appId, name: bot.name, backlog, channels };
      }),
    );
    const waiting = (b: BotAtWork) =>
      b.backlog + b.channels.reduce((n, c) => n + c.parked + (c.breaker === 'open' ? 1 : 0), 0);
    rows.sort((a, b) => waiting(b) - waiting(a) || a.name.localeCompare(b.name));
    ctx.body = { bots: rows };
  });
}
