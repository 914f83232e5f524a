/** The pipeline bench's results: turns table, CPU by component and the target verdict, on stdout. */
import type { LoadResult } from './load.ts';
import type { Backlog, Counters } from './probes.ts';
import { table } from '../lib/table.ts';

const MiB = 1024 * 1024;

/** Sustained turns per second the pipeline must carry on the 2-core machine. */
export const TARGET_TURNS_PER_S = 500;
/** p99 latency, callback POST to sendMessage, it must stay under (ms). */
export const TARGET_P99_MS = 100;

export interface Setup {
  /**
   * What answers: botwire's pipeline, the hand-written grammY bot (./grammy-bot.ts), or the
   * design's floor (./floor-bus.ts: its hops alone, or with the records of exactly-once).
   */
  system: 'botwire' | 'grammY' | 'floor' | 'floor+records';
  /** Whose users the phase simulates. */
  channel: 'telegram' | 'web';
  processes: number;
  /** LANGUAGE_HOP given to the components. */
  languageHop: string;
  users: number;
  bots: number;
  rate: number;
  seconds: number;
  warmupSeconds: number;
  /** Turns/s channel's pacing lets this many bots and chats send (see pacing.ts); Infinity for web. */
  paceCeiling: number;
  /** The Redis set-up the pipeline ran on, with BENCH_REDIS (`single node`, `cluster`). */
  redis?: string;
}

/** A phase's headline figures, for the comparison of channels in one run. */
export interface Summary {
  system: Setup['system'];
  channel: Setup['channel'];
  /** The rate offered (BENCH_RATE, or the sweep's). */
  rate: number;
  /** Turns/s issued in the measured window. */
  offered: number;
  /** First replies per second inside the measured window. */
  sustained: number;
  p50: number;
  p99: number;
  lost: number;
  meets: boolean;
  /**
   * The rate was carried: replies at 95 % of the offered rate or more, p99 under
   * TARGET_P99_MS, and nothing lost, duplicated, out of order, refused or not offered.
   */
  carried: boolean;
  /**
   * The rate was not kept up with: replies under 95 % of the offered rate, or something lost,
   * duplicated, out of order, refused or not offered (a p99 over the target alone is not this).
   */
  saturated: boolean;
  /**
   * CPU µs and sleeps (voluntary context switches) per turn replied of each row of the CPU table
   * (undefined where /proc was unread).
   */
  cpuRows: { name: string; usPerTurn: number | undefined; sleepsPerTurn: number | undefined }[];
  /**
   * CPU µs per turn replied in the window: all rows (`total`), the botwire processes (`pipeline`:
   * api, channel, language, flow) and the Redis server(s); undefined without /proc.
   */
  cpuPerTurnUs: { total?: number; pipeline?: number; redis?: number };
  machine: MachineCpu | undefined;
}

/** CPU time one group of processes used in the measured window. */
export interface CpuRow {
  name: string;
  role?: 'pipeline' | 'redis';
  processes: number;
  /** Seconds of user + system CPU; undefined where /proc could not be read. */
  seconds: number | undefined;
  /** Times the main threads went to sleep (voluntary context switches); undefined without /proc. */
  sleeps?: number | undefined;
  /** Resident memory at the window's end (bytes); undefined where not read (Postgres backends). */
  rss?: number | undefined;
}

/** Share of the machine's CPU time in the window, from /proc/stat. */
export interface MachineCpu {
  cores: number;
  /** user, nice, system, irq, softirq, steal over all time (0..1). */
  busy: number;
  iowait: number;
  /** The 1-minute load average at the start and the end of the window. */
  load: [number, number];
}

/** Nearest-rank percentile of sorted values; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

const ms = (value: number): string => (Number.isNaN(value) ? '-' : value.toFixed(1));

export function printReport(report: {
  setup: Setup;
  result: LoadResult;
  cpu: CpuRow[];
  machine: MachineCpu | undefined;
  /** Per topic, at the end of the window. */
  backlog: Backlog[];
  /** Postgres and Redis work in the window. */
  counters: Counters | undefined;
}): Summary {
  const { setup, result: r } = report;
  const windowS = r.windowMs / 1000;
  const sustained = r.repliesInWindow / windowS;
  const p50 = percentile(r.latencies, 0.5);
  const p99 = percentile(r.latencies, 0.99);

  const what =
    setup.system === 'grammY'
      ? 'grammY baseline: one process, sessions in Postgres'
      : setup.system === 'floor' || setup.system === 'floor+records'
        ? `the floor: edge, channel and flow processes doing only their hops over Redis Streams, state in Postgres${setup.system === 'floor' ? '' : ', and the records of exactly-once (update marker, inbound row, sent calls read and recorded)'}`
        : `${setup.redis ? `${setup.redis}, ` : ''}${setup.channel}: ${setup.processes} process(es) each of channel, language, flow (+ 1 api), LANGUAGE_HOP=${setup.languageHop}`;
  console.log(
    `\n${what}; ${setup.users} users over ${setup.bots} bot(s); ` +
      `offered ${setup.rate} turns/s open-loop; ${windowS.toFixed(1)} s measured after ${setup.warmupSeconds} s warm-up\n`,
  );
  console.log(
    table([
      [
        'offered/s',
        'turns/s',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'max ms',
        'lost',
        'duplicated',
        'out-of-order',
      ],
      [
        (r.measuredTurns / windowS).toFixed(0),
        sustained.toFixed(0),
        ms(p50),
        ms(percentile(r.latencies, 0.9)),
        ms(p99),
        ms(r.latencies[r.latencies.length - 1] ?? Number.NaN),
        String(r.lost),
        String(r.duplicated),
        String(r.outOfOrder),
      ],
    ]),
  );
  console.log(
    `\nturns sent ${r.issued} (warm-up included), replies ${r.replies}; callbacks refused ${r.refused}, ` +
      `deferred by backpressure (503, retried) ${r.deferred}, ` +
      `not offered (backlog full) ${r.skipped}, replies to no known turn ${r.unknown}`,
  );
  if (r.deferred > 0) {
    const a = r.afterAcceptance;
    console.log(
      `backpressure: ${r.stillDeferred} turn(s) still deferred at the end (not lost: the platform holds them), ` +
        `${r.lostRecent} of the lost accepted in the last 5 s (late deferred turns, most likely); ` +
        `measured turns that were deferred, from acceptance to reply: p50 ${ms(percentile(a, 0.5))} ms, ` +
        `p99 ${ms(percentile(a, 0.99))} ms (${a.length} turns)`,
    );
  }
  console.log(
    `backlog at the end of the window (unread + unacknowledged entries): ${report.backlog
      .map((b) => `${b.topic} ${b.lag} + ${b.pending}`)
      .join(', ')}`,
  );
  if (setup.rate > setup.paceCeiling) {
    console.log(
      `note: channel paces Telegram sends (30/s per bot, 1/s per private chat), so ${setup.bots} bot(s) and ` +
        `${setup.users} chats carry at most ${setup.paceCeiling.toFixed(0)} turns/s: this run measures the pacing, not the pipeline`,
    );
  }

  const totalCpu = report.cpu.reduce((sum, row) => sum + (row.seconds ?? 0), 0);
  const totalSleeps = report.cpu.some((row) => row.sleeps === undefined)
    ? undefined
    : report.cpu.reduce((sum, row) => sum + row.sleeps!, 0);
  const cpuRows = [
    ...report.cpu,
    { name: 'total', processes: 0, seconds: totalCpu, sleeps: totalSleeps, rss: undefined },
  ];
  console.log(`\nCPU in the measured window (user + system, from /proc)\n`);
  console.log(
    table([
      ['component', 'processes', 'CPU s', '% of a core', 'CPU µs/turn', 'sleeps/turn', 'RSS MiB'],
      ...cpuRows.map((row) => [
        row.name,
        row.processes > 0 ? String(row.processes) : '',
        row.seconds?.toFixed(2) ?? '-',
        row.seconds === undefined ? '-' : ((row.seconds / windowS) * 100).toFixed(0),
        row.seconds === undefined || r.repliesInWindow === 0
          ? '-'
          : ((row.seconds * 1e6) / r.repliesInWindow).toFixed(0),
        row.sleeps === undefined || r.repliesInWindow === 0
          ? '-'
          : (row.sleeps / r.repliesInWindow).toFixed(1),
        row.rss === undefined ? '-' : (row.rss / MiB).toFixed(0),
      ]),
    ]),
  );
  if (report.machine) {
    const { cores, busy, iowait, load } = report.machine;
    // The machine may be shared: what the rows above do not account for ran elsewhere.
    const ours = totalCpu / windowS / cores;
    console.log(
      `machine: ${(busy * 100).toFixed(0)}% of ${cores} cores busy (the rows above ${(ours * 100).toFixed(0)}%, ` +
        `other processes ${(Math.max(0, busy - ours) * 100).toFixed(0)}%), ${(iowait * 100).toFixed(0)}% iowait; ` +
        `load average ${load[0].toFixed(2)} at the window's start, ${load[1].toFixed(2)} at its end`,
    );
    // Only when the pipeline kept up is every turn's work inside the window it was counted in.
    const keptUp = r.lost === 0 && sustained >= 0.95 * (r.measuredTurns / windowS);
    if (keptUp && r.repliesInWindow > 0 && totalCpu > 0) {
      const perTurn = totalCpu / r.repliesInWindow;
      console.log(
        `at ${(perTurn * 1e6).toFixed(0)} µs of CPU per turn, ${cores} idle cores carry at most ` +
          `${(cores / perTurn).toFixed(0)} turns/s`,
      );
    } else {
      console.log(
        'the pipeline did not keep up: the window holds work for turns not yet replied, so the ' +
          'per-turn figures overstate the cost of a turn',
      );
    }
  }

  if (report.counters && r.repliesInWindow > 0) {
    const per = (n: number): string => (n / r.repliesInWindow).toFixed(1);
    const { postgres: pg, redis } = report.counters;
    console.log(
      `per turn: postgres ${per(pg.commits)} commits, rows ${per(pg.inserted)} inserted, ` +
        `${per(pg.updated)} updated, ${per(pg.fetched)} fetched (scratch database)`,
    );
    const commands = [...redis].sort((a, b) => b[1].usec - a[1].usec);
    const calls = commands.reduce((sum, [, c]) => sum + c.calls, 0);
    const usec = commands.reduce((sum, [, c]) => sum + c.usec, 0);
    // The Redis server may be shared, so its counters can include other clients' commands.
    console.log(
      `          redis ${per(calls)} commands, ${per(usec)} µs in commands (whole server): ` +
        commands
          .slice(0, 8)
          .map(([name, c]) => `${name} ${per(c.calls)} (${per(c.usec)} µs)`)
          .join(', '),
    );
  }

  const checks: [boolean, string][] = [
    [sustained >= TARGET_TURNS_PER_S, `${sustained.toFixed(0)} turns/s >= ${TARGET_TURNS_PER_S}`],
    [p99 < TARGET_P99_MS, `p99 ${ms(p99)} ms < ${TARGET_P99_MS}`],
    [r.lost === 0, `lost ${r.lost} = 0`],
    [r.duplicated === 0, `duplicated ${r.duplicated} = 0`],
    [r.outOfOrder === 0, `out-of-order ${r.outOfOrder} = 0`],
    [
      r.refused + r.skipped + r.unknown === 0,
      `refused/not offered/unknown ${r.refused}/${r.skipped}/${r.unknown} = 0`,
    ],
  ];
  console.log(
    `\ntarget: >= ${TARGET_TURNS_PER_S} turns/s with p99 < ${TARGET_P99_MS} ms, nothing lost, duplicated or out of order`,
  );
  for (const [ok, what] of checks) console.log(`  ${ok ? 'ok   ' : 'FAIL '} ${what}`);
  const meets = checks.every(([ok]) => ok);
  console.log(`  ${meets ? 'MEETS' : 'BELOW'}`);
  const perTurnOf = (rows: CpuRow[]): number | undefined =>
    r.repliesInWindow === 0 || rows.length === 0 || rows.some((row) => row.seconds === undefined)
      ? undefined
      : (rows.reduce((sum, row) => sum + row.seconds!, 0) * 1e6) / r.repliesInWindow;
  const offered = r.measuredTurns / windowS;
  const saturated =
    sustained < 0.95 * offered ||
    r.lost + r.duplicated + r.outOfOrder + r.refused + r.skipped + r.unknown > 0;
  return {
    system: setup.system,
    channel: setup.channel,
    rate: setup.rate,
    offered,
    sustained,
    p50,
    p99,
    lost: r.lost,
    meets,
    carried: !saturated && p99 < TARGET_P99_MS,
    saturated,
    cpuRows: report.cpu.map((row) => ({
      name: row.name,
      usPerTurn: perTurnOf([row]),
      sleepsPerTurn:
        row.sleeps === undefined || r.repliesInWindow === 0
          ? undefined
          : row.sleeps / r.repliesInWindow,
    })),
    cpuPerTurnUs: {
      total: perTurnOf(report.cpu),
      pipeline: perTurnOf(report.cpu.filter((row) => row.role === 'pipeline')),
      redis: perTurnOf(report.cpu.filter((row) => row.role === 'redis')),
    },
    machine: report.machine,
  };
}

/** Share of both cores other processes took in a summary's window, as in the report's machine line. */
function othersPercent(s: Summary): string {
  const m = s.machine;
  if (!m || s.cpuPerTurnUs.total === undefined) return '-';
  return (Math.max(0, m.busy - (s.cpuPerTurnUs.total * s.sustained) / 1e6 / m.cores) * 100).toFixed(
    0,
  );
}

const usText = (value: number | undefined): string =>
  value === undefined ? '-' : value.toFixed(0);

const ratioText = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || b === 0 ? '-' : (a / b).toFixed(2);

/** The headline columns every comparison table starts a summary's row with. */
const HEADLINE = ['offered/s', 'turns/s', 'p50 ms', 'p99 ms', 'lost'];
const headline = (s: Summary): string[] => [
  s.offered.toFixed(0),
  s.sustained.toFixed(0),
  ms(s.p50),
  ms(s.p99),
  String(s.lost),
];
/** The 1-minute load average at the window's start and end. */
const loadText = (s: Summary): string =>
  s.machine ? `${s.machine.load[0].toFixed(1)}→${s.machine.load[1].toFixed(1)}` : '-';

/** The channels of one run side by side, each against the first (the baseline). */
export function printComparison(summaries: readonly Summary[]): void {
  const base = summaries[0];
  if (base === undefined || summaries.length < 2) return;
  console.log(`
channels in this run, against ${base.channel} (the baseline)
`);
  console.log(
    table([
      ['channel', ...HEADLINE, 'turns/s ratio', 'p99 ratio'],
      ...summaries.map((s) => [
        s.channel,
        ...headline(s),
        (s.sustained / base.sustained).toFixed(2),
        (s.p99 / base.p99).toFixed(2),
      ]),
    ]),
  );
}

/** A Redis set-up's phases (BENCH_REDIS), one per channel. */
export interface RedisRun {
  redis: string;
  summaries: Summary[];
}

/**
 * The Redis set-ups of one run side by side, per channel, each against the single node (the
 * baseline; else the first set-up) at the same offered rate: turns/s, latency, CPU per turn, and the machine's load and
 * the share of it other processes took in each window.
 */
export function printRedisComparison(runs: readonly RedisRun[]): void {
  // The single node is the baseline wherever it ran in the order (BENCH_REDIS=cluster,single).
  const base = runs.find((run) => run.redis === 'single node') ?? runs[0];
  if (base === undefined || runs.length < 2) return;
  console.log(
    `\nRedis set-ups in this run, against ${base.redis} (the baseline), same offered rate\n`,
  );
  const rows: string[][] = [
    [
      'redis',
      'channel',
      ...HEADLINE,
      'CPU µs/turn',
      'botwire µs/turn',
      'redis µs/turn',
      'load avg',
      'others %',
      'turns/s ratio',
      'p99 ratio',
      'CPU ratio',
    ],
  ];
  for (const run of runs) {
    for (const s of run.summaries) {
      const b = base.summaries.find((x) => x.channel === s.channel);
      rows.push([
        run.redis,
        s.channel,
        ...headline(s),
        usText(s.cpuPerTurnUs.total),
        usText(s.cpuPerTurnUs.pipeline),
        usText(s.cpuPerTurnUs.redis),
        loadText(s),
        othersPercent(s),
        ratioText(s.sustained, b?.sustained),
        ratioText(s.p99, b?.p99),
        ratioText(s.cpuPerTurnUs.total, b?.cpuPerTurnUs.total),
      ]);
    }
  }
  console.log(table(rows));
}

/**
 * botwire's phases beside the grammY baseline measured in the same run at the same offered rate,
 * with the ratios, and where each one's CPU per turn goes.
 */
export function printBaselineComparison(
  baseline: Summary,
  runs: readonly { label: string; summary: Summary }[],
): void {
  console.log(
    `\nbotwire beside the grammY baseline (the same load generator, stand-in and accounting), ratios against grammY\n`,
  );
  const rows: string[][] = [
    [
      'system',
      ...HEADLINE,
      'CPU µs/turn',
      'load avg',
      'others %',
      'CPU ratio',
      'turns/s ratio',
      'p99 ratio',
    ],
  ];
  for (const { label, summary: s } of [{ label: 'grammY', summary: baseline }, ...runs]) {
    rows.push([
      label,
      ...headline(s),
      usText(s.cpuPerTurnUs.total),
      loadText(s),
      othersPercent(s),
      ratioText(s.cpuPerTurnUs.total, baseline.cpuPerTurnUs.total),
      ratioText(s.sustained, baseline.sustained),
      ratioText(s.p99, baseline.p99),
    ]);
  }
  console.log(table(rows));
  console.log('\nwhere a turn’s CPU goes: µs per turn replied (sleeps per turn)');
  for (const { label, summary: s } of [{ label: 'grammY', summary: baseline }, ...runs]) {
    const sleeps = (n: number | undefined): string => (n === undefined ? '-' : n.toFixed(1));
    console.log(
      `  ${label}: ${s.cpuRows.map((row) => `${row.name} ${usText(row.usPerTurn)} (${sleeps(row.sleepsPerTurn)})`).join(', ')}`,
    );
  }
}

/**
 * A capacity sweep (BENCH_SWEEP): per offered rate, each system's figures, and the highest rate
 * each carried (`Summary.carried`). A system's sweep stops at the first rate it does not keep up
 * with (`Summary.saturated`); a rate missed by its p99 alone does not stop it, since one stall
 * can cost a 20 s window its p99.
 */
export function printSweep(rates: readonly number[], results: readonly Summary[]): void {
  const systems = [...new Set(results.map((s) => s.system))];
  const at = (system: Summary['system'], rate: number): Summary | undefined =>
    results.find((s) => s.system === system && s.rate === rate);
  console.log(
    `\ncapacity sweep: each system at each offered rate until the first it does not keep up with ` +
      `(carried: replies at 95 % of the offered rate or more, p99 < ${TARGET_P99_MS} ms, nothing lost, duplicated, out of order or refused)\n`,
  );
  const header = ['offered/s'];
  for (const system of systems) {
    header.push(`${system} turns/s`, 'p99 ms', 'lost', 'µs/turn', 'carried');
  }
  for (const system of systems.slice(1)) header.push(`µs/turn ${system}/${systems[0]}`);
  const rows: string[][] = [header];
  for (const rate of rates) {
    const row = [String(rate)];
    for (const system of systems) {
      const s = at(system, rate);
      row.push(
        s ? s.sustained.toFixed(0) : '-',
        s ? ms(s.p99) : '-',
        s ? String(s.lost) : '-',
        s ? usText(s.cpuPerTurnUs.total) : '-',
        s ? (s.carried ? 'yes' : 'no') : 'not run',
      );
    }
    for (const system of systems.slice(1)) {
      row.push(
        ratioText(at(system, rate)?.cpuPerTurnUs.total, at(systems[0]!, rate)?.cpuPerTurnUs.total),
      );
    }
    rows.push(row);
  }
  console.log(table(rows));
  const capacity = systems.map((system) => {
    const carried = results.filter((s) => s.system === system && s.carried).map((s) => s.rate);
    return { system, rate: carried.length > 0 ? Math.max(...carried) : 0 };
  });
  const [first, ...others] = capacity;
  console.log(
    `\nhighest rate carried: ${capacity.map((c) => `${c.system} ${c.rate || 'none'}`).join(', ')}` +
      (first && first.rate > 0
        ? others
            .map((c) => ` (${c.system}/${first.system} ${(c.rate / first.rate).toFixed(2)})`)
            .join('')
        : ''),
  );
}
