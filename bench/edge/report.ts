/** The edge bench's results table, target verdict and published-count check, on stdout. */
import type autocannon from 'autocannon';
import { table } from '../lib/table.ts';

/** The edge must keep at least this share of the baseline's throughput. */
export const TARGET_RATIO = 0.8;

export interface Run {
  result: autocannon.Result;
  /** CPU time the server process used per request answered (microseconds), where measurable. */
  cpuUsPerRequest: number | undefined;
  /** CPU time the Redis server used per request answered (microseconds), where on this machine. */
  redisCpuUsPerRequest: number | undefined;
}

/**
 * Which server a scenario hits: the real edge, one of the edge's floors (`floor.ts`: the baseline
 * with the signature check and the once-per-message publish; `contract`: with the schemas, the
 * channel_in message and the bot's ledger too, the least an edge keeping the guarantees does) or
 * the baseline (`baseline.ts`).
 */
export type ServerKind = 'edge' | 'floor' | 'contract' | 'baseline';

export interface Outcome {
  name: string;
  server: ServerKind;
  /** The measured runs, one per round. */
  runs: Run[];
  /** 2xx answers of the warm-up run (published too, so counted in the stream check). */
  warm2xx: number;
}

export interface StreamCount {
  key: string;
  length: number;
  server: ServerKind;
}

/** req/s of a run: autocannon's mean of its per-second samples. */
function rate(run: Run): number {
  return run.result.requests.average;
}

/** The run with the median req/s (the lower middle one for an even count). */
function median(outcome: Outcome): Run {
  const sorted = [...outcome.runs].sort((a, b) => rate(a) - rate(b));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function sum(outcome: Outcome, count: (result: autocannon.Result) => number): number {
  return outcome.runs.reduce((total, run) => total + count(run.result), 0);
}

export function printReport(report: {
  outcomes: Outcome[];
  connections: number;
  runsPerScenario: number;
  streams: StreamCount[];
}): void {
  const { outcomes } = report;
  const rounds = outcomes[0]?.runs.length ?? 0;
  const baselineOutcome = outcomes.find((o) => o.server === 'baseline');
  const baseline = baselineOutcome ? rate(median(baselineOutcome)) : 0;
  const ratio = (o: Outcome): number => (baseline > 0 ? rate(median(o)) / baseline : 0);
  const failures = (o: Outcome): number => sum(o, (r) => r.errors) + sum(o, (r) => r.non2xx);
  const rows = [
    [
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'errors/non-2xx',
      'vs baseline',
      'server CPU µs/req',
      'Redis CPU µs/req',
    ],
    ...outcomes.map((o) => [
      o.name,
      rate(median(o)).toFixed(0),
      median(o).result.latency.p50.toFixed(1),
      median(o).result.latency.p99.toFixed(1),
      `${sum(o, (r) => r.errors)}/${sum(o, (r) => r.non2xx)}`,
      o.server === 'baseline' ? '1.00' : ratio(o).toFixed(2),
      median(o).cpuUsPerRequest?.toFixed(0) ?? '-',
      median(o).redisCpuUsPerRequest?.toFixed(0) ?? '-',
    ]),
  ];
  const first = outcomes[0]?.runs[0]?.result;
  const what = rounds > 1 ? `median of ${rounds} interleaved rounds; ` : '';
  console.log(
    `\n${first?.connections ?? 0} connections, ${first?.duration ?? 0} s per run (${what}req/s: mean of per-second samples)\n`,
  );
  console.log(table(rows));
  if (rounds > 1 && baselineOutcome) {
    console.log('\nratio to the baseline in each round:');
    for (const o of outcomes.filter((x) => x.server !== 'baseline')) {
      const each = o.runs.map((run, i) => (rate(run) / rate(baselineOutcome.runs[i]!)).toFixed(2));
      console.log(`  ${each.join(' ')}  ${o.name}`);
    }
  }

  console.log(`\ntarget: edge req/s >= ${TARGET_RATIO} x baseline, with no errors or non-2xx`);
  for (const o of outcomes.filter((x) => x.server === 'edge')) {
    const meets = ratio(o) >= TARGET_RATIO && failures(o) === 0;
    console.log(`  ${meets ? 'MEETS' : 'BELOW'}  ${ratio(o).toFixed(2)}  ${o.name}`);
  }
  for (const o of outcomes.filter((x) => x.server === 'floor' || x.server === 'contract')) {
    console.log(
      `  floor  ${ratio(o).toFixed(2)}  ${o.name}: the most an edge keeping the guarantees can keep`,
    );
  }

  console.log('\nstreams after the run (entries vs 2xx answers, warm-up included):');
  for (const stream of report.streams) {
    const feeding = outcomes.filter((o) => o.server === stream.server);
    const answered = feeding.reduce((total, o) => total + sum(o, (r) => r['2xx']) + o.warm2xx, 0);
    const extra = stream.length - answered;
    // A run stops with up to one request per connection in flight: the server may still have
    // published it, but its answer was never counted.
    const slack = report.connections * report.runsPerScenario * feeding.length;
    const verdict =
      extra === 0
        ? 'match'
        : extra > 0 && extra <= slack
          ? `match (+${extra} cut off in flight when a run stopped, at most ${slack})`
          : `MISMATCH (${extra > 0 ? '+' : ''}${extra})`;
    console.log(`  ${stream.key}  XLEN ${stream.length}  2xx ${answered}  ${verdict}`);
  }
}
