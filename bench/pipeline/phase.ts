/**
 * One measured phase of the pipeline bench, for one channel's users: every user's first message,
 * the warm-up, the measured window with CPU and counters read at its edges, the grace period for
 * late replies, then the report. The pipeline is started once (./run.ts); with BENCH_CHANNELS
 * naming two channels, two phases run on it one after the other.
 */
import { writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import type { Topic } from '../../src/shared/bus/topics.ts';
import type { Knex } from '../../src/shared/db.ts';
import type { Redis } from '../../src/shared/redis.ts';
import { BENCH_PARTITIONS } from '../lib/setup.ts';
import { PACES } from '../../src/channel/pacing.ts';
import type { BotAddress } from './bots.ts';
import { Load, type User } from './load.ts';
import type { PlatformStandIn } from './platform.ts';
import { backlogOf, counterDelta, machineTicks, readCounters, type CpuGroup } from './probes.ts';
import { printReport, type CpuRow, type MachineCpu, type Setup, type Summary } from './report.ts';

/** Turns/s at which every user's first message is sent before the warm-up. */
const INTRODUCTION_RATE = 100;

export interface Phase {
  load: Load;
  setup: Setup;
  graceSeconds: number;
  /** What is read of the system while the phase runs. */
  probes: Probes;
  /** A file for each measured turn's send time and latency (BENCH_LATENCY_DUMP). */
  latencyDump: string | undefined;
  /** Send every user's first message before the warm-up. @defaultValue true */
  introduce?: boolean;
}

/** What the bench reads of a system while a phase runs: CPU and sleeps, backlog, counters. */
export interface Probes {
  cpuGroups: CpuGroup[];
  /** The bus topics whose backlog is reported (none for the baseline). */
  topics: readonly Topic[];
  prefix: string;
  dbName: string;
  redis: Redis;
  adminDb: Knex;
}

/**
 * What answers the simulated Telegram users, started: botwire's pipeline (./botwire.ts) or the
 * grammY baseline (./grammy.ts), with what the bench reads of it while it runs.
 */
export interface System extends Probes {
  /** The report's description of it. */
  setup: Pick<Setup, 'system' | 'processes' | 'languageHop' | 'redis'>;
  /** Where the users POST their updates. */
  origin: URL;
  /** The stand-in Telegram API its replies go to. */
  platform: PlatformStandIn;
  /** Its bots' callback paths and secrets; users are spread over them round-robin. */
  bots: readonly BotAddress[];
  /** Whether it paces Telegram sends (channel's pacing; the grammY bot has none). */
  paced: boolean;
}

/** The Telegram users of a run: a private chat each, spread round-robin over the bots. */
export function telegramUsers(bots: readonly BotAddress[], count: number): User[] {
  return Array.from({ length: count }, (_, u) => ({
    chatId: 500_000_000 + u,
    ...bots[u % bots.length]!,
  }));
}

/**
 * One measured phase of Telegram users against `system` at `rate`. `round` numbers the phases on
 * the same users (Load's `round`); only the first introduces them.
 */
export async function measureTelegram(
  system: System,
  o: {
    users: number;
    rate: number;
    round: number;
    seconds: number;
    warmupSeconds: number;
    graceSeconds: number;
    connections: number;
    latencyDump: string | undefined;
  },
): Promise<Summary> {
  const load = new Load({
    origin: system.origin,
    users: telegramUsers(system.bots, o.users),
    rate: o.rate,
    connections: o.connections,
    maxBacklog: Math.max(1000, o.rate * 10),
    round: o.round,
  });
  system.platform.onSend = (sent) => load.onReply(sent);
  try {
    return await runPhase({
      load,
      setup: {
        ...system.setup,
        channel: 'telegram',
        users: o.users,
        bots: system.bots.length,
        rate: o.rate,
        seconds: o.seconds,
        warmupSeconds: o.warmupSeconds,
        paceCeiling: system.paced
          ? Math.min(
              (system.bots.length * 1000) / PACES.telegramBot.intervalMs,
              (o.users * 1000) / PACES.telegramPrivateChat.intervalMs,
            )
          : Infinity,
      },
      graceSeconds: o.graceSeconds,
      probes: system,
      latencyDump: o.latencyDump,
      introduce: o.round === 0,
    });
  } finally {
    load.close();
  }
}

export async function runPhase(phase: Phase): Promise<Summary> {
  const { load, setup } = phase;
  const { cpuGroups, redis, adminDb, dbName, prefix, topics } = phase.probes;
  let before: (number | undefined)[] = [];
  let after: (number | undefined)[] = [];
  let sleepsBefore: (number | undefined)[] = [];
  let sleepsAfter: (number | undefined)[] = [];
  let rssAtEnd: (number | undefined)[] = [];
  let ticksBefore: ReturnType<typeof machineTicks>;
  let ticksAfter: ReturnType<typeof machineTicks>;
  // The 1-minute load average at the window's edges (what `uptime` shows first).
  let loadBefore = Number.NaN;
  let loadAfter = Number.NaN;
  let countersBefore: ReturnType<typeof readCounters> | undefined;
  let countersAfter: ReturnType<typeof readCounters> | undefined;
  if (phase.introduce !== false) {
    console.error(
      `bench: ${setup.system}, ${setup.channel}: introducing ${setup.users} users (first message each, ${Math.min(setup.rate, INTRODUCTION_RATE)}/s)`,
    );
    await load.introduce(Math.min(setup.rate, INTRODUCTION_RATE), 60_000);
    if (load.owed > 0)
      console.error(`bench: ${load.owed} first messages still unanswered; going on`);
  }
  console.error(
    `bench: ${setup.system}, ${setup.channel}: ${setup.users} users, ${setup.rate} turns/s: ${setup.warmupSeconds} s warm-up, then ${setup.seconds} s measured`,
  );
  await load.drive(setup.warmupSeconds * 1000, setup.seconds * 1000, (mark) => {
    // CPU first: the postgres group reads its backends' sleeps with their CPU.
    const readings = cpuGroups.map((g) => g.read());
    const sleeps = cpuGroups.map((g) => g.sleeps());
    // Read without waiting: the generator must keep its pace.
    const counters = readCounters(adminDb, dbName, redis);
    counters.catch(() => undefined);
    if (mark === 'start') {
      before = readings;
      sleepsBefore = sleeps;
      ticksBefore = machineTicks();
      loadBefore = loadavg()[0]!;
      countersBefore = counters;
    } else {
      after = readings;
      sleepsAfter = sleeps;
      rssAtEnd = cpuGroups.map((g) => g.rss());
      ticksAfter = machineTicks();
      loadAfter = loadavg()[0]!;
      countersAfter = counters;
    }
  });
  const backlog = await Promise.all(
    topics.map((topic) => backlogOf(redis, prefix, topic, BENCH_PARTITIONS)),
  );
  console.error(`bench: waiting up to ${phase.graceSeconds} s for ${load.owed} replies still owed`);
  await load.drain(phase.graceSeconds * 1000, 1000);
  if (phase.latencyDump) {
    const lines = load
      .latencyBySendTime()
      .map(([sent, ms]) => `${sent.toFixed(1)} ${ms.toFixed(1)}`);
    await writeFile(phase.latencyDump, `sent_ms latency_ms\n${lines.join('\n')}\n`);
    console.error(`bench: ${lines.length} turns' latencies written to ${phase.latencyDump}`);
  }

  let machine: MachineCpu | undefined;
  if (ticksBefore && ticksAfter) {
    const total = ticksAfter[2] - ticksBefore[2];
    machine = {
      cores: availableParallelism(),
      busy: (ticksAfter[0] - ticksBefore[0]) / total,
      iowait: (ticksAfter[1] - ticksBefore[1]) / total,
      load: [loadBefore, loadAfter],
    };
  }
  const cpu: CpuRow[] = cpuGroups.map((g, i) => ({
    name: g.name,
    ...(g.role ? { role: g.role } : {}),
    processes: g.processes(),
    seconds: before[i] === undefined || after[i] === undefined ? undefined : after[i] - before[i],
    sleeps:
      sleepsBefore[i] === undefined || sleepsAfter[i] === undefined
        ? undefined
        : sleepsAfter[i] - sleepsBefore[i],
    rss: rssAtEnd[i],
  }));
  return printReport({
    setup,
    result: load.result(),
    cpu,
    machine,
    backlog,
    counters:
      countersBefore && countersAfter
        ? counterDelta(await countersBefore, await countersAfter)
        : undefined,
  });
}

/**
 * Waits until no topic has entries unread or unacknowledged, at most `timeoutMs`, so that a phase
 * does not start while the pipeline still works off the one before. Says so when it gives up.
 */
export async function waitDrained(
  redis: Redis,
  prefix: string,
  topics: readonly Topic[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const backlog = await Promise.all(
      topics.map((topic) => backlogOf(redis, prefix, topic, BENCH_PARTITIONS)),
    );
    const left = backlog.reduce((sum, b) => sum + b.lag + b.pending, 0);
    if (left === 0) return;
    if (Date.now() > deadline) {
      console.error(`bench: ${left} entries still in the pipeline; starting the next phase anyway`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
