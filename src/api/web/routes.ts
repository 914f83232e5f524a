/** The web channel's routes (docs/web-channel.md), on the edge's open router. */
import type { Router } from '@koa/router';
import type { Edge } from '../edge.ts';
import { webCallback } from './callback.ts';
import { preflight } from './channel.ts';
import { webEvents } from './events.ts';
import { createSession } from './sessions.ts';
import { loadWidget, serveWidget } from './widget.ts';

/**
 * Adds the web routes; `admit` is the edge's pipeline backpressure, applied to visitor messages
 * as to every platform's callbacks.
 */
export function webRoutes(router: Router, edge: Edge, admit: () => void): void {
  const widget = loadWidget();
  router.get('/v2/web/widget.js', (ctx) => serveWidget(ctx, widget));
  router.post('/v2/web/:app_id/sessions', (ctx) =>
    createSession(ctx, edge, ctx.params.app_id ?? ''),
  );
  router.get('/v2/web/:app_id/events', (ctx) => webEvents(ctx, edge, ctx.params.app_id ?? ''));
  router.post('/v2/callback/web/:app_id', (ctx) => {
    admit();
    return webCallback(ctx, edge, ctx.params.app_id ?? '');
  });
  for (const path of [
    '/v2/web/:app_id/sessions',
    '/v2/web/:app_id/events',
    '/v2/callback/web/:app_id',
  ]) {
    router.options(path, (ctx) => preflight(ctx, edge, ctx.params.app_id ?? ''));
  }
}
