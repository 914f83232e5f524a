/**
 * Handoff helpers: waiting handoffs written straight into the table (the flow side that starts
 * them is tested on its own), and the agent's routes served with a chosen principal.
 *
 * Why a second server: authentication by account (which sets `ctx.state.principal`) is not the
 * edge's yet; until it is, the edge only knows the admin key, an owner. This server mounts the
 * real handoff routes on the real Redis, Postgres, producer and event stream of the test edge,
 * behind a middleware that takes the principal from a test header, so agents can be tested.
 */
import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import { Router } from '@koa/router';
import type { Principal } from '../../src/api/admin/principal.ts';
import { handoffRoutes } from '../../src/api/admin/handoffs.ts';
import { readJson } from '../../src/api/body.ts';
import { errorMiddleware } from '../../src/api/http-errors.ts';
import { BotwireError } from '../../src/shared/errors.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { createKit } from '../../src/shared/worker-kit.ts';
import { callEdge, type CallOptions, type CallResult, type TestApi } from './api.ts';

/** A conversation and its handoff, written directly. */
export interface SeededHandoff {
  conversationId: string;
  handoffId: string;
  chatId: string;
}

let chats = 7_000_000;

/**
 * Writes a user, a conversation on the bot's channel and a handoff of it (`waiting` unless
 * `status` says otherwise), with its conversation state when `state` is given.
 */
export async function seedHandoff(
  t: TestApi,
  bot: { appId: string; channelId: string },
  options: {
    chatId?: string;
    status?: string;
    queue?: string | null;
    createdAt?: string;
    claimedBy?: string;
    state?: Record<string, unknown>;
  } = {},
): Promise<SeededHandoff> {
  const db = t.schema.db;
  chats += 1;
  const chatId = options.chatId ?? String(chats);
  const pid = `test:${chatId}`;
  await db('users').insert({ pid, first_name: 'Ana' }).onConflict('pid').ignore();
  const conversations: unknown = await db('conversations')
    .insert({ app_id: bot.appId, channel_id: bot.channelId, user_pid: pid, chat_id: chatId })
    .returning('id');
  const [conversation] = conversations as { id: string }[];
  const conversationId = conversation!.id;
  if (options.state) {
    await db('conversation_state').insert({
      conversation_id: conversationId,
      app_id: bot.appId,
      state: JSON.stringify(options.state),
    });
  }
  const status = options.status ?? 'waiting';
  const handoffs: unknown = await db('handoffs')
    .insert({
      app_id: bot.appId,
      conversation_id: conversationId,
      status,
      queue: options.queue ?? null,
      reason: 'keyword',
      fallback_state: 'listen',
      ...(options.createdAt ? { created_at: options.createdAt } : {}),
      ...(status === 'claimed'
        ? { claimed_by: options.claimedBy ?? 'admin-key', claimed_at: db.fn.now() }
        : {}),
      ...(['returned', 'closed', 'fallback'].includes(status)
        ? { ended_at: db.fn.now(), ended_by: 'test' }
        : {}),
    })
    .returning('id');
  const [handoff] = handoffs as { id: string }[];
  return { conversationId, handoffId: handoff!.id, chatId };
}

/** An agent-side server: the handoff routes, called as any principal. */
export interface AgentServer {
  url: string;
  /** Calls the route as `principal`. */
  call(
    principal: Principal,
    method: string,
    path: string,
    options?: CallOptions,
  ): Promise<CallResult>;
  close(): Promise<void>;
}

/** An agent of `bots`, named `name`. */
export function agent(name: string, bots: string[]): Principal {
  return { actor: `account:${name}@example.test`, role: 'agent', accountId: null, bots };
}

export async function startAgentServer(t: TestApi): Promise<AgentServer> {
  const logger = createLogger({ component: 'test', level: 'silent' });
  const kit = createKit(t.config, logger, { name: 'botwire-test-agents' });
  const app = new Koa();
  app.silent = true;
  app.context.log = logger;
  app.use(errorMiddleware);
  app.use(async (ctx, next) => {
    const header = ctx.get('x-test-principal');
    if (header !== '') {
      const principal = JSON.parse(header) as Principal;
      ctx.state.principal = principal;
      ctx.state.actor = principal.actor;
    }
    await next();
  });
  const router = new Router();
  handoffRoutes(
    router,
    {
      db: t.schema.db,
      producer: kit.producer,
      events: kit.events,
      schemas: kit.schemas,
      dedupeTtlS: 3600,
    },
    async <T>(ctx: Koa.Context, schema: string): Promise<T> => {
      const { json } = await readJson(ctx, 1 << 20, 5000);
      const result = kit.schemas.validate<T>(schema, json);
      if (!result.ok) throw new BotwireError('BW_ERR_SCHEMA', 'the body fails its schema');
      return result.value;
    },
  );
  app.use(router.routes());
  const handle = app.callback();
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    call: (principal, method, path, options = {}) =>
      callEdge(url, '', method, path, {
        ...options,
        auth: false,
        headers: { ...options.headers, 'x-test-principal': JSON.stringify(principal) },
      }),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      kit.redis.disconnect();
    },
  };
}
