/**
 * Footprint of each component at rest: the time from `node` starting to the component being ready
 * (its "started" log line: connected, migrated schema read, consuming or listening), and its
 * resident memory after `BENCH_IDLE_S` seconds of rest with all six running. Each component as
 * production runs it, compiled (`dist/`, what `scripts/run.sh` and the image start), and, as the
 * baseline measured in the same run, from its TypeScript sources under `tsx`. Rounds alternate
 * the two forms; medians are printed, with the ratio compiled / tsx.
 *
 *   npm run bench:footprint                     # 3 rounds, 10 s of rest
 *   BENCH_ROUNDS=5 BENCH_IDLE_S=20 npm run bench:footprint
 *   BENCH_NODE_ARGS=--max-semi-space-size=16 npm run bench:footprint  # V8's default young generation
 *
 * Both forms run with production's V8 flags (scripts/node-options.sh), then BENCH_NODE_ARGS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { childEnv, cpuSeconds, freePort, stopChild } from '../edge/processes.ts';
import { rssOf } from '../knowledge/memory.ts';
import type { Redis } from '../../src/shared/redis.ts';
import { redisCommandStats } from '../pipeline/probes.ts';
import {
  cleanups,
  commonOptions,
  componentEntry,
  intEnv,
  openScratch,
  ROOT,
  runBench,
} from '../lib/setup.ts';
import { median } from '../lib/stats.ts';
import { table } from '../lib/table.ts';

const COMPONENTS = ['api', 'channel', 'language', 'flow', 'retriver', 'indexer'] as const;
type Component = (typeof COMPONENTS)[number];
type Form = 'compiled' | 'tsx';
const MiB = 1024 * 1024;

interface Sample {
  readyMs: number;
  rss: number | undefined;
  /** Proportional set size: pages shared with other processes (Node's own code) split among them. */
  pss: number | undefined;
  /** CPU time used at rest, in the second half of the idle time (% of one core). */
  cpu: number | undefined;
}

/** Pss of a process in bytes, from /proc/<pid>/smaps_rollup; undefined without it. */
function pssOf(pid: number): number | undefined {
  try {
    const kb = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** Starts `component` in `form` and resolves when it logs "started", with the time that took. */
async function startOne(
  component: Component,
  form: Form,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[],
): Promise<{ child: ChildProcess; readyMs: number }> {
  const args = [
    ...nodeArgs,
    ...(form === 'compiled'
      ? [componentEntry(component)]
      : ['--import', 'tsx', `src/${component}/main.ts`]),
  ];
  const began = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, CONSUMER_NAME: `${component}-1` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${component} (${form}) was not ready within 60 s: ${out.slice(-2000)}`));
    }, 60_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/"msg":"started"/.test(out)) {
        clearTimeout(timer);
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve({ child, readyMs: performance.now() - began });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${component} (${form}) exited (${code ?? signal}): ${out.slice(-2000)}`));
    });
  });
}

/** Stops a component as the other benches stop theirs (SIGTERM, SIGKILL after 10 s). */
function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve({ code: child.exitCode, signal: child.signalCode })
      : child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return stopChild({ name: 'component', process: child, exited });
}

/**
 * One round of one form: the six started one after another, then rest, then their memory; their
 * CPU time and the Redis commands (the whole server's) over the second half of the rest.
 */
async function round(
  form: Form,
  env: NodeJS.ProcessEnv,
  nodeArgs: (component: Component) => string[],
  idleS: number,
  redis: Redis,
): Promise<{ samples: Record<Component, Sample>; redisPerS: Map<string, number> }> {
  const running: { component: Component; child: ChildProcess; readyMs: number }[] = [];
  const stopAll = (): Promise<unknown> => Promise.all(running.map((r) => stop(r.child)));
  cleanups.push({ what: `stop the ${form} components`, run: stopAll });
  try {
    for (const component of COMPONENTS) {
      running.push({ component, ...(await startOne(component, form, env, nodeArgs(component))) });
    }
    const half = (idleS * 1000) / 2;
    await new Promise((resolve) => setTimeout(resolve, half));
    const cpuBefore = running.map((r) => cpuSeconds(r.child.pid));
    const commandsBefore = await redisCommandStats(redis);
    const began = performance.now();
    await new Promise((resolve) => setTimeout(resolve, half));
    const seconds = (performance.now() - began) / 1000;
    const commandsAfter = await redisCommandStats(redis);
    const redisPerS = new Map(
      [...commandsAfter].map(([name, { calls }]) => [
        name,
        (calls - (commandsBefore.get(name)?.calls ?? 0)) / seconds,
      ]),
    );
    const samples = Object.fromEntries(
      running.map((r, i) => {
        const [before, after] = [cpuBefore[i], cpuSeconds(r.child.pid)];
        const cpu =
          before === undefined || after === undefined
            ? undefined
            : ((after - before) / seconds) * 100;
        return [
          r.component,
          { readyMs: r.readyMs, rss: rssOf(r.child.pid!), pss: pssOf(r.child.pid!), cpu },
        ];
      }),
    ) as Record<Component, Sample>;
    return { samples, redisPerS };
  } finally {
    await stopAll();
    cleanups.pop();
  }
}

await runBench(async () => {
  const options = commonOptions();
  const rounds = intEnv('BENCH_ROUNDS', 3, 1);
  const idleS = intEnv('BENCH_IDLE_S', 10, 1);
  const { prefix, databaseUrl, redis } = await openScratch(options, 'bench-footprint');
  const env = childEnv({
    STREAM_PREFIX: prefix,
    DATABASE_URL: databaseUrl.toString(),
    REDIS_URL: options.redisUrl,
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    ADMIN_API_KEY: randomBytes(32).toString('base64url'),
    API_HOST: '127.0.0.1',
    API_PORT: String(await freePort()),
    LOG_LEVEL: 'info',
    SHUTDOWN_TIMEOUT_MS: '5000',
  });
  componentEntry('api'); // builds dist/ now, outside the timings
  const loadBefore = loadavg()[0]!;
  const samples: Record<Form, Record<Component, Sample>[]> = { compiled: [], tsx: [] };
  const redisAtRest: Map<string, number>[] = [];
  for (let i = 0; i < rounds; i += 1) {
    // A B B A: neither form always runs first on a warmer machine.
    const order: Form[] = i % 2 === 0 ? ['compiled', 'tsx'] : ['tsx', 'compiled'];
    for (const form of order) {
      console.error(`bench: round ${i + 1}/${rounds}, ${form}`);
      const result = await round(form, env, options.componentNodeArgs, idleS, redis);
      samples[form].push(result.samples);
      if (form === 'compiled') redisAtRest.push(result.redisPerS);
    }
  }
  const loadAfter = loadavg()[0]!;

  const stat = (
    form: Form,
    component: Component,
    what: 'readyMs' | 'rss' | 'pss' | 'cpu',
  ): number => median(samples[form].map((s) => s[component][what] ?? Number.NaN));
  const ratio = (a: number, b: number): string => (b > 0 ? (a / b).toFixed(2) : '-');
  const mib = (bytes: number): string => (bytes / MiB).toFixed(0);
  const rows = COMPONENTS.map((c) => {
    const [rc, rt] = [stat('compiled', c, 'readyMs'), stat('tsx', c, 'readyMs')];
    const [mc, mt] = [stat('compiled', c, 'rss'), stat('tsx', c, 'rss')];
    const cpu = stat('compiled', c, 'cpu');
    return [
      c,
      rc.toFixed(0),
      rt.toFixed(0),
      ratio(rc, rt),
      mib(mc),
      mib(mt),
      ratio(mc, mt),
      cpu.toFixed(1),
    ];
  });
  const total = (form: Form, what: 'rss' | 'pss' | 'cpu'): number =>
    median(
      samples[form].map((s) => COMPONENTS.reduce((sum, c) => sum + (s[c][what] ?? Number.NaN), 0)),
    );
  const [tc, tt] = [total('compiled', 'rss'), total('tsx', 'rss')];
  rows.push([
    'all six',
    '',
    '',
    '',
    mib(tc),
    mib(tt),
    ratio(tc, tt),
    total('compiled', 'cpu').toFixed(1),
  ]);
  const [pc, pt] = [total('compiled', 'pss'), total('tsx', 'pss')];
  rows.push(['all six, shared pages once (PSS)', '', '', '', mib(pc), mib(pt), ratio(pc, pt), '']);
  console.log(
    `\nfootprint: medians of ${rounds} round(s); memory after ${idleS} s at rest with all six running; ` +
      `node arguments [api: ${options.componentNodeArgs('api').join(' ')}; the others: ${options.componentNodeArgs('flow').join(' ')}]; ` +
      `load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)} on ${availableParallelism()} cores\n`,
  );
  console.log(
    table([
      [
        'component',
        'ready ms compiled',
        'ready ms tsx',
        'ratio',
        'RSS MiB compiled',
        'RSS MiB tsx',
        'ratio',
        'CPU % of a core at rest, compiled',
      ],
      ...rows,
    ]),
  );
  // The whole server's commands: another client of the same Redis would be counted too.
  const perS = (name: string): number => median(redisAtRest.map((m) => m.get(name) ?? 0));
  const names = [...new Set(redisAtRest.flatMap((m) => [...m.keys()]))]
    .map((name) => [name, perS(name)] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  // The median of the rounds' totals, and each command's median of its rounds.
  const all = median(redisAtRest.map((m) => [...m.values()].reduce((sum, n) => sum + n, 0)));
  console.log(
    `\nRedis at rest, compiled (the whole server, second half of the rest): ${all.toFixed(0)} commands/s: ` +
      names
        .slice(0, 12)
        .map(([name, n]) => `${name} ${n.toFixed(1)}`)
        .join(', '),
  );
});
