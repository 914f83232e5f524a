/**
 * Prometheus metrics of the edge: requests by route and status, their latency, and messages
 * published by topic. Served at GET /metrics. prom-client is the de-facto Prometheus client for
 * Node; its histogram and text exposition are not worth rewriting.
 */
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export interface EdgeMetrics {
  registry: Registry;
  middleware: Middleware;
  published: Counter<'topic'>;
}

export function createMetrics(): EdgeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'botwire_http_requests_total',
    help: 'HTTP requests by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'botwire_http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const published = new Counter({
    name: 'botwire_published_messages_total',
    help: 'Messages published to topics by the edge.',
    labelNames: ['topic'] as const,
    registers: [registry],
  });
  const middleware: Middleware = async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // The route pattern, never the raw path: ids in paths would explode the label set.
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      const labels = { route, method: ctx.method, status: String(ctx.status) };
      requests.inc(labels);
      duration.observe(labels, (performance.now() - started) / 1000);
    }
  };
  return { registry, middleware, published };
}
