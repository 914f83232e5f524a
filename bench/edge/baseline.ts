/**
 * The baseline of the edge bench: the least an HTTP edge can do with a callback on the same stack
 * (Koa, koa-bodyparser, ioredis): parse the JSON body and XADD it to a stream, answer 200. No
 * routing, authentication, validation or dedupe. Started as a child process by run.ts.
 *
 * Env: BASELINE_PORT (required), BASELINE_STREAM (required), REDIS_URL (default
 * redis://127.0.0.1:6379), BASELINE_MAXLEN (approximate stream length kept, default 1000000).
 */
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';

const port = Number(process.env.BASELINE_PORT);
const stream = process.env.BASELINE_STREAM ?? '';
const maxLen = Number(process.env.BASELINE_MAXLEN ?? 1_000_000);
if (!Number.isInteger(port) || port <= 0 || !stream) {
  console.error('baseline: BASELINE_PORT and BASELINE_STREAM are required');
  process.exit(2);
}

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
  connectionName: 'bench-baseline',
});
const app = new Koa();
app.use(bodyParser({ enableTypes: ['json'] }));
app.use(async (ctx) => {
  if (ctx.method !== 'POST') {
    ctx.body = { status: 'ok' }; // the readiness probe
    return;
  }
  await redis.xadd(stream, 'MAXLEN', '~', maxLen, '*', 'data', JSON.stringify(ctx.request.body));
  ctx.body = { ok: true };
});

const handle = app.callback();
const server = createServer((req, res) => void handle(req, res)); // Koa answers its own errors
server.keepAliveTimeout = 65_000; // as the edge
server.listen(port, '127.0.0.1');

process.on('SIGTERM', () => {
  server.close(() => {
    redis.disconnect();
    process.exit(0);
  });
  server.closeIdleConnections();
});
