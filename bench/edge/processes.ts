/**
 * Child processes of the bench: each server runs in its own Node process, so the load generator
 * never shares an event loop with what it measures.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { SETTINGS } from '../../src/config.ts';

export interface Child {
  name: string;
  process: ChildProcess;
  /** Settles when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A TCP port on 127.0.0.1 free right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (typeof address !== 'object' || !address) throw new Error('no port was assigned');
  return address.port;
}

/**
 * The environment for a child: ours without any botwire setting (a developer's shell or env file
 * must not leak into the bench), plus `env`.
 */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(SETTINGS)) delete base[key];
  return { ...base, ...env };
}

/**
 * Starts `node [nodeArgs] --import tsx <entry>` in `cwd`. Its stdout and stderr go to our stderr,
 * so the bench's own stdout holds only the results.
 */
export function startNode(
  name: string,
  cwd: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
): Child {
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, entry], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(process.stderr);
  child.stderr.pipe(process.stderr);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { name, process: child, exited };
}

/** Runs a command to completion; rejects when it exits with anything but 0. */
export async function runCommand(
  cwd: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(process.stderr);
  child.stderr.pipe(process.stderr);
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}`);
}

/** Polls `url` until it answers 200; fails when `child` exits first or after `timeoutMs`. */
export async function waitReady(child: Child, url: string, timeoutMs = 30_000): Promise<void> {
  let exited = false;
  void child.exited.then(() => (exited = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${child.name} exited before it was ready`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${child.name} was not ready at ${url} after ${timeoutMs} ms`);
}

/** SIGTERM (the child drains), then SIGKILL when it has not exited after `graceMs`. */
export async function stopChild(child: Child, graceMs = 10_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

let ticksPerSecond: number | undefined;

/**
 * CPU time (user + system, seconds) a process has used so far, from /proc; undefined where there
 * is no /proc (not Linux). Unlike throughput, CPU per request barely moves when other work shares
 * the machine.
 */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: utime is the
    // 14th field of the line, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return undefined;
  }
}
