/**
 * `GET /v2/ops/bots`: what waits for each bot now, so Operations tells the truth when a platform
 * fails (docs/operations.md): the bot's backlog as the edge's backpressure counts it (its turns in
 * flight plus its parked replies, `shared/bot-turns.ts`), and per channel the replies parked
 * behind its circuit breaker, whether the breaker is open and for how long yet, and the failed
 * platform calls in its window (src/channel/breaker.ts). `waiting` says whether anything does (the
 * console lists those bots); they come first, the most held up first. And the replies the
 * platforms refused today, by code. Bots are read from the directory's memory, not the database,
 * and the refusals in one indexed read: the page asks every few seconds.
 */
import type { Router } from '@koa/router';
import { breakerKeys, turnsInFlight } from '../../shared/bot-turns.ts';
import type { Edge } from '../edge.ts';
import { mayAccessBot, principalOf } from './principal.ts';

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

interface BotAtWork {
  app_id: string;
  name: string;
  backlog: number;
  /** Something waits: a backlog, parked replies, an open breaker or failed calls. */
  waiting: boolean;
  channels: ChannelAtWork[];
  /** Replies the platforms refused today (UTC), by channel type and code, most first. */
  refused_today: Refusals[];
}

interface Refusals {
  channel_type: string;
  code: string;
  count: number;
}

/**
 * The replies the platforms refused today, per bot, from the analytics rollup channel keeps as
 * it records them (docs/analytics.md#the-service-users-got): one indexed read for all the bots.
 */
async function refusedToday(edge: Edge, appIds: string[]): Promise<Map<string, Refusals[]>> {
  const { rows } = await edge.db.raw<{ rows: (Refusals & { app_id: string })[] }>(
    `select app_id, channel_type, code, sum(count)::int as count from analytics_events
     where app_id = any(?::text[]) and day = (now() at time zone 'utc')::date
       and event = 'send_failed'
     group by 1, 2, 3 order by 4 desc, 2, 3`,
    [appIds],
  );
  const byBot = new Map<string, Refusals[]>();
  for (const { app_id: appId, ...refusals } of rows)
    byBot.set(appId, [...(byBot.get(appId) ?? []), refusals]);
  return byBot;
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
    const bots = edge.directory.bots().filter((bot) => mayAccessBot(assigned, bot.appId));
    const { horizonMs } = edge.botBacklog;
    const refused = await refusedToday(
      edge,
      bots.map((b) => b.appId),
    );
    const rows = await Promise.all(
      bots.map(async (bot): Promise<BotAtWork> => {
        // The console channel's test chats count too: they share the bot's pipeline.
        const [inFlight, channels] = await Promise.all([
          turnsInFlight(edge.redis, edge.prefix, bot.appId, horizonMs),
          Promise.all(bot.channels.map((c) => channelAtWork(edge, c))),
        ]);
        // The backlog as the edge counts it (`botBacklog`), from the parked counts read above.
        const backlog = channels.reduce((n, c) => n + c.parked, inFlight);
        const waiting = backlog > 0 || channels.some((c) => c.breaker === 'open' || c.failures > 0);
        return {
          app_id: bot.appId,
          name: bot.name,
          backlog,
          waiting,
          channels,
          refused_today: refused.get(bot.appId) ?? [],
        };
      }),
    );
    const weight = (b: BotAtWork) =>
      b.backlog + b.channels.filter((c) => c.breaker === 'open').length;
    rows.sort(
      (a, b) =>
        Number(b.waiting) - Number(a.waiting) ||
        weight(b) - weight(a) ||
        a.name.localeCompare(b.name),
    );
    ctx.body = { bots: rows };
  });
}
