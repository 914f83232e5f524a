/**
 * GET /v2/web/widget.js: the embeddable chat widget (top-level `widget/`), read once at start.
 * Cached by browsers for an hour and revalidated by ETag, so a new release reaches pages within
 * the hour without every page view downloading it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context } from 'koa';
import { projectPath } from '../../shared/runtime-layout.ts';

const WIDGET_PATH = projectPath('widget', 'widget.js');

export interface WidgetFile {
  body: Buffer;
  etag: string;
}

export function loadWidget(): WidgetFile {
  const body = readFileSync(WIDGET_PATH);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag };
}

export function serveWidget(ctx: Context, widget: WidgetFile): void {
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.set('ETag', widget.etag);
  // Any page may load the script; what it may do is decided by the channel's origins.
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
  ctx.type = 'application/javascript; charset=utf-8';
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = widget.body;
}
