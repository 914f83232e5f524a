/**
 * The `llm` steps' metrics (docs/flows.md, "The llm step"), read from the totals the `flow`
 * processes keep in Redis (`src/shared/flows/llm-usage.ts`) on each scrape: steps by outcome
 * (`ok` or a `BW_ERR_FLOW_LLM_*` code) and tokens, over every bot since the Redis was new. Every
 * api process reports the same figures: aggregate them with `max`, not `sum`.
 */
import { Gauge, type Registry } from 'prom-client';
import { readLlmStats } from '../shared/flows/llm-usage.ts';
import type { Redis } from '../shared/redis.ts';

export function llmMetrics(registry: Registry, redis: Redis, prefix: string): void {
  let last: ReturnType<typeof read> | undefined;
  const read = () => readLlmStats(redis, prefix).catch(() => undefined);
  // Both gauges are filled from one read per scrape.
  const figures = () => {
    last ??= read().finally(() => setImmediate(() => (last = undefined)));
    return last;
  };
  new Gauge({
    name: 'botwire_flow_llm_steps',
    help: "Flows' llm steps by outcome (ok, or the BW_ERR_FLOW_LLM_* code), in all (a total kept in Redis).",
    labelNames: ['outcome'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { outcome, count } of (await figures())?.steps ?? []) this.set({ outcome }, count);
    },
  });
  new Gauge({
    name: 'botwire_flow_llm_tokens',
    help: "Tokens flows' llm steps used, in all (as the provider reported them, else estimated).",
    registers: [registry],
    async collect() {
      const read = await figures();
      if (read) this.set(read.tokens);
    },
  });
}
