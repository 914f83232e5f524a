/**
 * Serves the console's build (`console/dist`) at `/console/`: hashed assets cached for a year as
 * immutable, `index.html` revalidated on every load (so a new build is picked up at once), deep
 * links such as `/console/bots/<id>` answered with `index.html` for the client-side router, and a
 * strict Content-Security-Policy on all of it. Files are sent by koa-send, which keeps every path
 * inside the build folder and sets types, lengths and Last-Modified.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, Middleware } from 'koa';
import send from 'koa-send';
import { BotwireError } from '../../shared/errors.ts';
import { projectPath } from '../../shared/runtime-layout.ts';
import { HSTS_MAX_AGE_S } from '../admin/guard.ts';

/** Where `npm run console:build` writes the console. */
export const CONSOLE_DIST = projectPath('console', 'dist');

/** Hashed assets never change under their name: cached for a year (milliseconds). */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

/**
 * Scripts from this origin only, no inline script, no eval, no plugins, not framable; the API is
 * reached on the same origin. Images may come from https (bots send image URLs). Styles may be
 * inline: the flow editor's JSON tab (CodeMirror) writes its theme into `<style>` elements at run
 * time, which `style-src 'self'` blocks (the editor then shows unstyled). A nonce would need
 * `index.html` rewritten per response; inline styles cannot run script, and every text the
 * console shows from the server is React text, never markup, so nothing a bot or a visitor
 * sends can add a style.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function notBuiltPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>botwire console: not built</title></head>
<body><main><h1>The console is not built</h1>
<p>Error code <code>BW_ERR_CONSOLE_NOT_BUILT</code>: this server has no <code>console/dist/index.html</code>.</p>
<p>Build it with <code>npm run console:build</code> (<code>./scripts/run.sh</code> builds it when it is missing or stale), then reload.</p>
</main></body></html>
`;
}

/** koa-send's own refusals (404 missing, 400 a malformed path) as catalogue errors. */
async function sendFile(ctx: Context, path: string, options: send.SendOptions): Promise<boolean> {
  try {
    await send(ctx, path, { ...options, brotli: false, gzip: false, hidden: false });
    return true;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 404) return false;
    if (status !== undefined && status < 500) {
      throw new BotwireError('BW_ERR_NOT_FOUND', 'no such console file', { cause: error });
    }
    throw error;
  }
}

/**
 * The console's pages and assets under `/console/`; `/console` redirects there. Other paths pass
 * through. HSTS as on admin responses: when `publicBaseUrl` is https or the request came over https.
 * @param dir the build folder. @defaultValue {@link CONSOLE_DIST}
 */
export function consoleStatic(publicBaseUrl: string, dir: string = CONSOLE_DIST): Middleware {
  const httpsBase = publicBaseUrl.startsWith('https://');
  const noCache = (res: Context['res']): void => void res.setHeader('Cache-Control', 'no-cache');
  return async (ctx, next) => {
    if (ctx.path === '/console') {
      ctx.redirect(`/console/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
      return;
    }
    if (!ctx.path.startsWith('/console/')) {
      await next();
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new BotwireError('BW_ERR_METHOD_NOT_ALLOWED', 'the console is read with GET');
    }
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    if (httpsBase || ctx.protocol === 'https') {
      ctx.set('Strict-Transport-Security', `max-age=${HSTS_MAX_AGE_S}`);
    }
    if (!existsSync(join(dir, 'index.html'))) {
      ctx.status = 503;
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Retry-After', '30');
      ctx.type = 'html';
      ctx.body = notBuiltPage();
      return;
    }
    const file = ctx.path.slice('/console/'.length);
    if (file.startsWith('assets/')) {
      const sent = await sendFile(ctx, file, {
        root: dir,
        maxage: ASSET_MAX_AGE_MS,
        immutable: true,
      });
      if (!sent) throw new BotwireError('BW_ERR_NOT_FOUND', 'no such console asset');
      return;
    }
    // A path with an extension names a file of the build; any other is a page of the app.
    if (/\.[A-Za-z0-9]+$/.test(file) && file !== 'index.html') {
      if (await sendFile(ctx, file, { root: dir, setHeaders: noCache })) return;
      throw new BotwireError('BW_ERR_NOT_FOUND', 'no such console file');
    }
    await sendFile(ctx, 'index.html', { root: dir, setHeaders: noCache });
  };
}
