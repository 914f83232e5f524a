/** The edge bench's results table, target verdict and published-count check, on stdout. */
import type autocannon from 'autocannon';
import { table } from '../lib/table.ts';

/** The edge must keep at least this share of the baseline's throughput. */
export const TARGET_RATIO = 0.8;

export interface Run {
  result: autocannon.Result;
  /** CPU time the server process used per request answered (microseconds), where measurable. */
  cpuUsPerRequest: number | undefined;
}

export interface Outcome {
  name: string;
  /** Whether this scenario hit the edge (else the baseline). */
  edge: boolean;
  /** The measured runs, one per round. */
  runs: Run[];
  /** 2xx answers of the warm-up run (published too, so counted in the stream check). */
  warm2xx: number;
}

export interface StreamCount {
  key: string;
  length: number;
  edge: boolean;
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
  const baselineOutcome = outcomes.find((o) => !o.edge);
  const baseline = baselineOutcome ? rate(median(baselineOutcome)) : 0;
  const ratio = (o: Outcome): number => (baseline > 0 ? rate(median(o)) / baseline : 0);
  const failures = (o: Outcome): number => sum(o, (r) => r.errors) + sum(o, (r) => r.non2xx);
  const rows = [
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors/non-2xx', 'vs baseline', 'server CPU µs/req'],
    ...outcomes.map((o) => [
      o.name,
      rate(median(o)).toFixed(0),
      median(o).result.latency.p50.toFixed(1),
      median(o).result.latency.p99.toFixed(1),
      `${sum(o, (r) => r.errors)}/${sum(o, (r) => r.non2xx)}`,
      o.edge ? ratio(o).toFixed(2) : '1.00',
      median(o).cpuUsPerRequest?.toFixed(0) ?? '-',
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
    for (const o of outcomes.filter((x) => x.edge)) {
      const each = o.runs.map((run, i) => (rate(run) / rate(baselineOutcome.runs[i]!)).toFixed(2));
      console.log(`  ${each.join(' ')}  ${o.name}`);
    }
  }

  console.log(`\ntarget: edge req/s >= ${TARGET_RATIO} x baseline, with no errors or non-2xx`);
  for (const o of outcomes.filter((x) => x.edge)) {
    const meets = ratio(o) >= TARGET_RATIO && failures(o) === 0;
    console.log(`  ${meets ? 'MEETS' : 'BELOW'}  ${ratio(o).toFixed(2)}  ${o.name}`);
  }

  console.log('\nstreams after the run (entries vs 2xx answers, warm-up included):');
  for (const stream of report.streams) {
    const feeding = outcomes.filter((o) => o.edge === stream.edge);
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
