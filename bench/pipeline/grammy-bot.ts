/**
 * The pipeline bench's baseline: the echo bot a TypeScript team would write by hand instead of
 * adopting botwire. One process, grammY's `webhookCallback` on Node's HTTP server, a session per
 * chat in Postgres (`@grammyjs/storage-psql` on a `pg` pool), `ctx.reply`. It keeps what the echo
 * flow keeps (the last text said) and answers `echo: <text>`, as botwire's bench bots do.
 *
 * What it does not have is what botwire's guarantees cost: no order across processes, no dedupe of
 * a repeated update, no transcript, no exactly-once effects, no dead letters, no pacing of sends,
 * no isolation between its bots (they share the process and the pool).
 *
 * Env: BASELINE_BOTS (JSON: `[{ "token": "...", "secret": "..." }]`; bot i is served at
 * `/bot/<i>` and checks `X-Telegram-Bot-Api-Secret-Token`), BASELINE_PORT, DATABASE_URL,
 * DATABASE_POOL_MAX, TELEGRAM_API_URL. `GET /healthz` answers 200 once every bot is ready.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { PsqlAdapter } from '@grammyjs/storage-psql';
import { Bot, type Context, session, type SessionFlavor, webhookCallback } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import pg from 'pg';

interface EchoSession {
  said?: string;
}
type EchoContext = Context & SessionFlavor<EchoSession>;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const bots = JSON.parse(required('BASELINE_BOTS')) as { token: string; secret: string }[];
const pool = new pg.Pool({
  connectionString: required('DATABASE_URL'),
  max: Number(process.env.DATABASE_POOL_MAX || 10),
  // Idle connections are kept for the run (pg closes them after 10 s by default): fewer
  // connections made and closed in the measured window, as with botwire's pool.
  idleTimeoutMillis: 0,
});
// The adapter only calls `client.query`, which a pool has too; one client would hold every bot to
// one connection.
const storage = await PsqlAdapter.create({
  tableName: 'sessions',
  client: pool as unknown as pg.Client,
});

/** What `getMe` would answer, given so that no bot calls it at start. */
function botInfo(token: string, index: number): UserFromGetMe {
  return {
    id: Number(token.split(':')[0]),
    is_bot: true,
    first_name: `bench echo ${index}`,
    username: `bench_echo_${index}_bot`,
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
    can_manage_bots: false,
    supports_join_request_queries: false,
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;
const handlers = new Map<string, Handler>();
bots.forEach(({ token, secret }, index) => {
  const bot = new Bot<EchoContext>(token, {
    botInfo: botInfo(token, index),
    client: { apiRoot: required('TELEGRAM_API_URL') },
  });
  bot.use(
    session({
      initial: (): EchoSession => ({}),
      storage,
      // The bots share one table, as they share the process.
      getSessionKey: (ctx) => (ctx.chat ? `${index}:${ctx.chat.id}` : undefined),
    }),
  );
  bot.on('message:text', async (ctx) => {
    ctx.session.said = ctx.message.text;
    await ctx.reply(`echo: ${ctx.message.text}`);
  });
  bot.catch((error) => console.error(`grammy bot ${index}: ${String(error.error)}`));
  handlers.set(`/bot/${index}`, webhookCallback(bot, 'http', { secretToken: secret }));
});

const server = createServer((req, res) => {
  const handler = handlers.get(req.url ?? '');
  if (handler && req.method === 'POST') {
    handler(req, res).catch((error: unknown) => {
      console.error(`grammy: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
    return;
  }
  res.writeHead(req.url === '/healthz' ? 200 : 404);
  res.end();
});
server.keepAliveTimeout = 65_000;
server.listen(Number(required('BASELINE_PORT')), '127.0.0.1');
await once(server, 'listening');

process.once('SIGTERM', () => {
  server.close(() => void pool.end().then(() => process.exit(0)));
  server.closeIdleConnections();
});
