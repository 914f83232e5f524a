/**
 * Prometheus metrics of the edge: requests by route and status, their latency, and messages
 * published by topic. Served at GET /metrics. prom-client is the de-facto Prometheus client for
 * Node; its histogram and text exposition are not worth rewriting.
 */
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { TopicDepth } from './backlog.ts';
import { matchedRoute } from './matched-route.ts';

export interface EdgeMetrics {
  registry: Registry;
  middleware: Middleware;
  published: Counter<'topic'>;
  /** Live events the api could not publish (best effort, docs/events.md). */
  eventsLost: Counter<'type'>;
  /** `GET /v2/events` streams open. */
  eventClients: Gauge;
  /** Web visitors' event streams open (`GET /v2/web/<app_id>/events`). */
  webStreams: Gauge;
  /** Audit rows the edge could not write after a change succeeded (docs/audit.md). */
  auditLost: Counter;
}

/**
 * @param depths read on each scrape: what waits in every topic and its dead letters (one
 *   pipelined round trip to Redis per partition, all at once); a failed read leaves the
 *   gauges out of that scrape.
 */
export function createMetrics(depths?: () => Promise<TopicDepth[]>): EdgeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  if (depths) {
    let last: Promise<TopicDepth[] | undefined> | undefined;
    // Both gauges are filled from one read per scrape.
    const read = (): Promise<TopicDepth[] | undefined> => {
      last ??= depths()
        .catch(() => undefined)
        .finally(() => setImmediate(() => (last = undefined)));
      return last;
    };
    new Gauge({
      name: 'botwire_topic_waiting_messages',
      help: 'Messages waiting in a topic: not read yet by its consumer group, or read and not acknowledged.',
      labelNames: ['topic'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const d of (await read()) ?? []) this.set({ topic: d.topic }, d.waiting);
      },
    });
    new Gauge({
      name: 'botwire_dead_letters',
      help: "Dead letters of a topic, over its partitions' dead-letter streams (inspect and replay with scripts/dead-letters.sh).",
      labelNames: ['topic'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const d of (await read()) ?? []) this.set({ topic: d.topic }, d.dead);
      },
    });
  }
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
  const eventsLost = new Counter({
    name: 'botwire_events_lost_total',
    help: 'Live events (GET /v2/events) the edge could not publish: invalid, or Redis unreachable. The work that caused them went on.',
    labelNames: ['type'] as const,
    registers: [registry],
  });
  const eventClients = new Gauge({
    name: 'botwire_event_stream_clients',
    help: 'GET /v2/events streams this api process serves now (at most EVENTS_MAX_CLIENTS).',
    registers: [registry],
  });
  const webStreams = new Gauge({
    name: 'botwire_web_event_streams',
    help: "Web visitors' event streams (GET /v2/web/<app_id>/events) this api process serves now (at most WEB_MAX_EVENT_STREAMS).",
    registers: [registry],
  });
  const auditLost = new Counter({
    name: 'botwire_audit_write_failures_total',
    help: 'Changes made through the admin API whose audit row could not be written (the change stands; the entry is in the error log).',
    registers: [registry],
  });
  const middleware: Middleware = async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // The route pattern, never the raw path: ids in paths would explode the label set.
      // A refused request (401, 403, 429 from the admin guard) counts under its route too.
      const route = matchedRoute(ctx) ?? 'unmatched';
      const labels = { route, method: ctx.method, status: String(ctx.status) };
      requests.inc(labels);
      duration.observe(labels, (performance.now() - started) / 1000);
    }
  };
  return { registry, middleware, published, eventsLost, eventClients, webStreams, auditLost };
}
