/**
 * Handoff metrics of the edge (docs/handoff.md): conversations waiting for an agent, in all and
 * per queue, and handoffs by outcome, both read from the `handoffs` table on each scrape (so
 * every api process reports the same figures: aggregate them with `max`, not `sum`); and the
 * time from a handoff's start to its first agent reply, a histogram observed by the api process
 * that published the reply (aggregate with `sum`).
 */
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { Knex } from '../shared/db.ts';

/** What one scrape reads. */
export interface HandoffFigures {
  /** Waiting handoffs by queue ('' for none). */
  waiting: { queue: string; count: number }[];
  /** Handoffs by status (waiting, claimed, returned, closed, fallback). */
  byStatus: { status: string; count: number }[];
}

/** One round trip: waiting by queue, and every handoff by status. */
export async function readHandoffFigures(db: Knex): Promise<HandoffFigures> {
  const result = await db.raw<{ rows: { kind: string; key: string; count: string }[] }>(
    `select 'waiting' as kind, coalesce(queue, '') as key, count(*) as count
       from handoffs where status = 'waiting' group by queue
     union all
     select 'status', status, count(*) from handoffs group by status`,
  );
  const figures: HandoffFigures = { waiting: [], byStatus: [] };
  for (const row of result.rows) {
    if (row.kind === 'waiting') figures.waiting.push({ queue: row.key, count: Number(row.count) });
    else figures.byStatus.push({ status: row.key, count: Number(row.count) });
  }
  return figures;
}

/**
 * Registers the handoff metrics on `registry`.
 * @param read read on each scrape; a failed read leaves the gauges out of that scrape.
 * @returns the histogram's observer: seconds from a handoff's start to its first agent reply.
 */
export function handoffMetrics(
  registry: Registry,
  read: () => Promise<HandoffFigures>,
): { firstReply: (seconds: number) => void } {
  let last: Promise<HandoffFigures | undefined> | undefined;
  // All gauges are filled from one read per scrape.
  const figures = (): Promise<HandoffFigures | undefined> => {
    last ??= read()
      .catch(() => undefined)
      .finally(() => setImmediate(() => (last = undefined)));
    return last;
  };
  new Gauge({
    name: 'botwire_handoffs_waiting',
    help: 'Conversations waiting for an agent (handoffs not claimed yet).',
    registers: [registry],
    async collect() {
      const read = await figures();
      if (!read) return;
      this.set(read.waiting.reduce((sum, w) => sum + w.count, 0));
    },
  });
  /** A gauge by one label, set afresh from each read (empty when the read failed). */
  const byLabel = (
    name: string,
    help: string,
    label: string,
    counts: (read: HandoffFigures) => [value: string, count: number][],
  ) =>
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [registry],
      async collect() {
        this.reset();
        const read = await figures();
        for (const [value, count] of read ? counts(read) : []) this.set({ [label]: value }, count);
      },
    });
  byLabel(
    'botwire_handoffs_waiting_by_queue',
    'Conversations waiting for an agent, by the queue of their handoff step ("" for none).',
    'queue',
    (read) => read.waiting.map((w) => [w.queue, w.count]),
  );
  byLabel(
    'botwire_handoffs',
    'Handoffs in the table by status: waiting and claimed are open; returned (handed back to the bot), closed (by an agent) and fallback (no agent in time) are outcomes.',
    'status',
    (read) => read.byStatus.map((s) => [s.status, s.count]),
  );
  const firstReply = new Histogram({
    name: 'botwire_handoff_first_reply_seconds',
    help: "Time from a handoff's start (the conversation began waiting) to its first agent reply.",
    buckets: [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600],
    registers: [registry],
  });
  return { firstReply: (seconds) => firstReply.observe(seconds) };
}
