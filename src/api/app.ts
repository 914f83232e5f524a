/** The Koa application of the edge: middleware order and routes. */
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { Router } from '@koa/router';
import { lazyChild, type Logger } from '../shared/logger.ts';
import { adminRouter } from './admin/routes.ts';
import { sessionRouter } from './admin/session-routes.ts';
import { consoleStatic } from './console/static.ts';
import { telegramCallback } from './callbacks/telegram.ts';
import { whatsappCallback, whatsappVerify } from './callbacks/whatsapp.ts';
import type { Edge } from './edge.ts';
import { errorMiddleware } from './http-errors.ts';
import type { EdgeMetrics } from './metrics.ts';
import { openApiDocument } from './openapi.ts';
import { BotwireError } from '../shared/errors.ts';
import { checkWithin, type CheckResult } from '../shared/health-file.ts';
import { webRoutes } from './web/routes.ts';

declare module 'koa' {
  interface DefaultContext {
    log: Logger;
  }
}

/** Whether Redis and Postgres answer within 2 s each. */
export async function readiness(
  edge: Pick<Edge, 'redis' | 'db'>,
): Promise<{ ok: boolean; checks: Record<string, CheckResult> }> {
  const [redis, postgres] = await Promise.all([
    checkWithin(() => edge.redis.ping(), 2000),
    checkWithin(() => edge.db.raw('select 1'), 2000),
  ]);
  return { ok: redis === 'ok' && postgres === 'ok', checks: { redis, postgres } };
}

export function createApp(edge: Edge, logger: Logger, metrics: EdgeMetrics): Koa {
  const app = new Koa({ proxy: true });
  app.silent = true; // errors are logged by errorMiddleware, once

  const open = new Router();
  open.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  open.get('/readyz', async (ctx) => {
    // Draining (SIGTERM, API_DRAIN_DELAY_MS): the load balancer takes this process out while it
    // still answers what is already on its way.
    if (edge.draining()) {
      ctx.status = 503;
      ctx.body = { status: 'draining', checks: {} };
      return;
    }
    const { ok, checks } = await readiness(edge);
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ready' : 'unavailable', checks };
  });
  open.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  const document = openApiDocument();
  open.get('/v2/openapi.json', (ctx) => {
    ctx.body = document;
  });
  // Backpressure (backlog.ts): refused before any work, so an overloaded edge stays cheap.
  const admit = (): void => {
    if (edge.overloaded()) {
      throw new BotwireError(
        'BW_ERR_OVERLOADED',
        'too many messages are waiting to be handled; try again shortly',
      );
    }
  };
  // Before the generic callback route, which does not know the web channel.
  webRoutes(open, edge, admit);
  open.post('/v2/callback/:chat_channel/:app_id', async (ctx) => {
    admit();
    const { chat_channel: channel = '', app_id: appId = '' } = ctx.params;
    if (channel === 'telegram') return telegramCallback(ctx, edge, appId);
    if (channel === 'whatsapp') return whatsappCallback(ctx, edge, appId);
    throw new BotwireError(
      'BW_ERR_UNKNOWN_CHANNEL',
      `unknown chat channel "${channel.slice(0, 32)}"`,
    );
  });
  open.get('/v2/callback/whatsapp/:app_id', (ctx) => whatsappVerify(ctx, edge, ctx.params.app_id));
  open.post('/callback', (ctx) => {
    admit();
    return whatsappCallback(ctx, edge);
  });
  open.get('/callback', (ctx) => whatsappVerify(ctx, edge));

  const adminRoutes = adminRouter(edge);
  const sessionRoutes = sessionRouter(edge);

  app.use(metrics.middleware);
  // The request logger is made on first use, and its child logger on its first line at the level:
  // most requests never log.
  Object.defineProperty(app.context, 'log', {
    get(this: Koa.Context): Logger {
      const log = lazyChild(logger, { reqId: randomUUID(), method: this.method, path: this.path });
      Object.defineProperty(this, 'log', { value: log });
      return log;
    },
    configurable: true,
  });
  app.use(errorMiddleware(edge.warnings));
  app.use(open.routes());
  app.use(
    open.allowedMethods({
      throw: true,
      methodNotAllowed: () => new BotwireError('BW_ERR_METHOD_NOT_ALLOWED', 'method not allowed'),
    }),
  );
  app.use(consoleStatic(edge.publicBaseUrl, edge.consoleDir));
  app.use(sessionRoutes.routes());
  app.use(
    sessionRoutes.allowedMethods({
      throw: true,
      methodNotAllowed: () => new BotwireError('BW_ERR_METHOD_NOT_ALLOWED', 'method not allowed'),
    }),
  );
  app.use(adminRoutes.routes());
  app.use(
    adminRoutes.allowedMethods({
      throw: true,
      methodNotAllowed: () => new BotwireError('BW_ERR_METHOD_NOT_ALLOWED', 'method not allowed'),
    }),
  );
  return app;
}
