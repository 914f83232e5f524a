/**
 * What the pipeline bench reads about the system while it runs: CPU time per process group and of
 * the machine (from /proc), the backlog of each topic, and Postgres and Redis work counters.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { assignPartitions } from '../../src/shared/bus/partition-assignment.ts';
import { topicKeys, type Topic } from '../../src/shared/bus/topics.ts';
import type { Knex } from '../../src/shared/db.ts';
import { isCluster, mastersOf, RedisNode, type Redis } from '../../src/shared/redis.ts';
import { cpuSeconds, type Child } from '../edge/processes.ts';
import { rssOf } from '../knowledge/memory.ts';

/** A group of processes whose CPU time is reported as one row. */
export interface CpuGroup {
  name: string;
  /** What the group is, for the per-turn sums: the botwire processes, Redis, or the rest. */
  role?: 'pipeline' | 'redis';
  /** CPU seconds (user + system) the group has used so far; undefined without /proc. */
  read: () => number | undefined;
  /**
   * How often the group's main threads have gone to sleep so far (voluntary context switches: each
   * is a wait for a socket, a timer or a lock, and a wake-up after it); undefined without /proc.
   */
  sleeps: () => number | undefined;
  /**
   * Resident memory of the group's processes now (bytes, VmRSS); undefined without /proc, and for
   * Postgres backends, whose resident set counts the shared buffers they touched.
   */
  rss: () => number | undefined;
  processes: () => number;
}

function sumOf(values: (number | undefined)[]): number | undefined {
  if (values.length === 0 || values.some((v) => v === undefined)) return undefined;
  return values.reduce<number>((sum, v) => sum + v!, 0);
}

/** Voluntary context switches of a process's main thread so far, from /proc. */
export function sleepsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^voluntary_ctxt_switches:\s+(\d+)/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** A group of the processes `pids` gives at each reading. */
function groupOf(
  name: string,
  pids: () => (number | undefined)[],
  role?: CpuGroup['role'],
): CpuGroup {
  return {
    name,
    ...(role ? { role } : {}),
    read: () => sumOf(pids().map((pid) => cpuSeconds(pid))),
    sleeps: () => sumOf(pids().map((pid) => sleepsOf(pid))),
    rss: () => sumOf(pids().map((pid) => (pid === undefined ? undefined : rssOf(pid)))),
    processes: () => pids().length,
  };
}

export function childGroup(name: string, children: Child[]): CpuGroup {
  return groupOf(name, () => children.map((c) => c.process.pid), 'pipeline');
}

export function pidGroup(name: string, pids: number[], role?: CpuGroup['role']): CpuGroup {
  return groupOf(name, () => pids, role);
}

/** The bench's CPU row of its own process: the load generator and the stand-in(s). */
export const benchGroup: CpuGroup = {
  name: 'bench (load + stand-in)',
  read: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  },
  sleeps: () => sleepsOf(process.pid),
  rss: () => process.memoryUsage.rss(),
  processes: () => 1,
};

/** Pids of the processes named `comm` whose command line contains `text`. */
function pidsOf(comm: string, text: string): number[] {
  const pids: number[] = [];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== comm) continue;
        const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
        if (cmdline.includes(text)) pids.push(Number(entry));
      } catch {
        // exited meanwhile
      }
    }
  } catch {
    // no /proc
  }
  return pids;
}

/**
 * The Postgres backends connected to `database` (their process title names it). The server's own
 * processes (WAL writer, checkpointer) are left out: they also work for every other database.
 * The set is taken at each reading, since pools open and close connections as they need them.
 */
export function postgresGroup(name: string, database: string): CpuGroup {
  // The last reading of every backend seen: one that exits between two readings keeps what it
  // had used, so the difference counts it until its last reading (and never goes negative).
  const cpu = new Map<number, number>();
  const sleeps = new Map<number, number>();
  let count = 0;
  const total = (readings: Map<number, number>): number | undefined =>
    readings.size === 0 ? undefined : [...readings.values()].reduce((s, v) => s + v, 0);
  return {
    name,
    read: () => {
      const pids = pidsOf('postgres', ` ${database} `);
      count = pids.length;
      for (const pid of pids) {
        const used = cpuSeconds(pid);
        if (used !== undefined) cpu.set(pid, used);
        const slept = sleepsOf(pid);
        if (slept !== undefined) sleeps.set(pid, slept);
      }
      return total(cpu);
    },
    // Read with the CPU, just before: the backends' set is the one the CPU reading found.
    sleeps: () => total(sleeps),
    rss: () => undefined,
    processes: () => count,
  };
}

/** [busy, iowait, total] clock ticks of the whole machine so far, from /proc/stat. */
export function machineTicks(): [number, number, number] | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line
      .split(/\s+/)
      .slice(1, 9)
      .map(Number) as [number, number, number, number, number, number, number, number];
    const busy = user + nice + system + irq + softirq + steal;
    return [busy, iowait, busy + idle + iowait];
  } catch {
    return undefined;
  }
}

/**
 * Waits until every process in `children` has joined the group of `topic` and the partitions are
 * held where the assignment wants them to stay (`assignPartitions`, as every consumer computes it),
 * so the measured run does not include a rebalance. Each child's name is its CONSUMER_NAME.
 */
export async function waitConsuming(
  redis: Redis,
  prefix: string,
  topic: Topic,
  partitions: number,
  children: Child[],
  timeoutMs = 30_000,
): Promise<void> {
  const keys = topicKeys(prefix, topic, partitions);
  const names = children.map((c) => c.name).sort();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = children.find((c) => c.process.exitCode !== null || c.process.signalCode);
    if (dead) throw new Error(`${dead.name} exited before it was consuming`);
    const members = (await redis.zrange(keys.members, '0', '-1')).sort();
    if (members.join() === names.join()) {
      // One GET per lease: each partition's keys lie in a slot of their own on a cluster.
      const owners = await Promise.all(keys.partitions.map((_, p) => redis.get(keys.lease(p))));
      // Settled: every partition held, and held where the assignment wants it to stay.
      const wanted = assignPartitions(partitions, members, owners);
      if (owners.every((owner, p) => owner !== null && wanted.get(owner)?.includes(p))) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${topic} consumers did not settle on their partitions in ${timeoutMs} ms`);
}

/** A topic's entries not yet read by its group (lag), and read but not acknowledged (pending). */
export interface Backlog {
  topic: Topic;
  lag: number;
  pending: number;
}

export async function backlogOf(
  redis: Redis,
  prefix: string,
  topic: Topic,
  partitions: number,
): Promise<Backlog> {
  const total: Backlog = { topic, lag: 0, pending: 0 };
  for (const stream of topicKeys(prefix, topic, partitions).partitions) {
    const groups = (await redis.call('XINFO', 'GROUPS', stream)) as unknown[][];
    for (const fields of groups) {
      const info = new Map<unknown, unknown>();
      for (let i = 0; i + 1 < fields.length; i += 2) info.set(fields[i], fields[i + 1]);
      if (info.get('name') !== topic) continue;
      total.lag += Number(info.get('lag') ?? 0);
      total.pending += Number(info.get('pending') ?? 0);
    }
  }
  return total;
}

/**
 * The pids of the redis-server processes behind `redis`: the one server (a master), or every node
 * of a cluster, masters and replicas apart, from their `INFO server`.
 */
export async function redisServerPids(
  redis: Redis,
): Promise<{ masters: number[]; replicas: number[] }> {
  if (!isCluster(redis)) return { masters: [pidOf(await redis.info('server'))], replicas: [] };
  if (redis.status !== 'ready') await redis.ping();
  // The client keeps connections to the masters only; CLUSTER NODES names the replicas too.
  const [master] = mastersOf(redis);
  const nodes = String(await master!.call('CLUSTER', 'NODES'))
    .trim()
    .split('\n')
    .map((line) => /^\S+ (\S+):(\d+)@\S* (\S+)/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({
      host: match[1]!,
      port: Number(match[2]),
      replica: match[3]!.split(',').includes('slave'),
    }));
  const options = redis.options.redisOptions ?? {};
  const pids = await Promise.all(
    nodes.map(async ({ host, port }) => {
      const node = new RedisNode({ ...options, host, port, lazyConnect: true });
      try {
        return pidOf(await node.info('server'));
      } finally {
        node.disconnect();
      }
    }),
  );
  return {
    masters: pids.filter((_, i) => !nodes[i]!.replica),
    replicas: pids.filter((_, i) => nodes[i]!.replica),
  };
}

function pidOf(info: string): number {
  const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error('INFO server names no process_id');
  return pid;
}

/**
 * Per Redis command, the calls served so far and the microseconds spent in them, summed over a
 * cluster's masters (`INFO commandstats`: a script's inner commands count too). Replicas are left
 * out: they run the commands their master replicates to them, not what the clients sent.
 */
export async function redisCommandStats(
  redis: Redis,
): Promise<Map<string, { calls: number; usec: number }>> {
  const commands = new Map<string, { calls: number; usec: number }>();
  for (const node of mastersOf(redis)) {
    for (const line of (await node.info('commandstats')).split('\n')) {
      const match = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
      if (!match) continue;
      const sum = commands.get(match[1]!) ?? { calls: 0, usec: 0 };
      commands.set(match[1]!, {
        calls: sum.calls + Number(match[2]),
        usec: sum.usec + Number(match[3]),
      });
    }
  }
  return commands;
}

/** Work counters: Postgres for the scratch database, Redis for the whole server. */
export interface Counters {
  postgres: Record<'commits' | 'inserted' | 'updated' | 'fetched', number>;
  /** Per Redis command: calls and microseconds spent (summed over a cluster's masters). */
  redis: Map<string, { calls: number; usec: number }>;
}

export async function readCounters(db: Knex, database: string, redis: Redis): Promise<Counters> {
  type Row = { commits: string; inserted: string; updated: string; fetched: string };
  const result = await db.raw<{ rows: Row[] }>(
    `select xact_commit as commits, tup_inserted as inserted, tup_updated as updated,
            tup_fetched as fetched
       from pg_stat_database where datname = ?`,
    [database],
  );
  const row = result.rows[0];
  const commands = await redisCommandStats(redis);
  return {
    postgres: {
      commits: Number(row?.commits ?? 0),
      inserted: Number(row?.inserted ?? 0),
      updated: Number(row?.updated ?? 0),
      fetched: Number(row?.fetched ?? 0),
    },
    redis: commands,
  };
}

/** What happened between two readings. */
export function counterDelta(before: Counters, after: Counters): Counters {
  const redis = new Map<string, { calls: number; usec: number }>();
  for (const [command, now] of after.redis) {
    const then = before.redis.get(command) ?? { calls: 0, usec: 0 };
    if (now.calls > then.calls) {
      redis.set(command, { calls: now.calls - then.calls, usec: now.usec - then.usec });
    }
  }
  const p = (key: keyof Counters['postgres']): number => after.postgres[key] - before.postgres[key];
  return {
    postgres: {
      commits: p('commits'),
      inserted: p('inserted'),
      updated: p('updated'),
      fetched: p('fetched'),
    },
    redis,
  };
}
