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
import { webRoutes } from './web/routes.ts';

declare module 'koa' {
  interface DefaultContext {
    log: Logger;
  }
}

async function readiness(edge: Edge): Promise<{ ok: boolean; checks: Record<string, string> }> {
  const check = async (probe: () => Promise<unknown>): Promise<string> => {
    try {
      await Promise.race([
        probe(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
      ]);
      return 'ok';
    } catch {
      return 'unreachable';
    }
  };
  const [redis, postgres] = await Promise.all([
    check(() => edge.redis.ping()),
    check(() => edge.db.raw('select 1')),
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
  app.use(errorMiddleware);
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
