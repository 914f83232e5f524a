/** Components of botwire as separate processes, for tests that kill and restart them. */
import { execFileSync } from 'node:child_process';
import { start, type Running } from './run.ts';
import { ROOT } from './services.ts';

/** A component with a `src/<name>/main.ts`, as `scripts/run.sh` starts it. */
export type ComponentName = 'api' | 'channel' | 'language' | 'flow' | 'retriver' | 'indexer';

const nodeOptionsOf = new Map<ComponentName, string[]>();

/**
 * The V8 flags `scripts/run.sh` and the image start `component` with: what
 * scripts/node-options.sh's `bw_component_node_options` prints for it with NODE_OPTIONS unset, so
 * which component gets which flags is said in that script alone.
 */
export function productionNodeOptions(component: ComponentName): string[] {
  let options = nodeOptionsOf.get(component);
  if (!options) {
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const printed = execFileSync(
      'sh',
      ['-c', '. scripts/node-options.sh && bw_component_node_options "$1"', 'sh', component],
      { cwd: ROOT, env, encoding: 'utf8' },
    );
    options = printed.split(' ').filter(Boolean);
    nodeOptionsOf.set(component, options);
  }
  return options;
}

/**
 * The arguments to `node` that start `component` as `scripts/run.sh` and the image do: compiled,
 * from `dist/` (which `scripts/test.sh` builds when it is missing or stale), with no loader, and
 * production's V8 flags.
 */
export function componentArgs(component: ComponentName): string[] {
  return [...productionNodeOptions(component), `dist/src/${component}/main.js`];
}

/**
 * How a component's process is started: the command and its arguments, given the environment it
 * must run with. The default is `node` on the compiled build; the image test runs containers.
 */
export type ComponentLauncher = (
  component: ComponentName,
  name: string,
  env: Record<string, string>,
) => { command: string; args: string[]; env?: Record<string, string> };

export const nodeLauncher: ComponentLauncher = (component, _name, env) => ({
  command: 'node',
  args: componentArgs(component),
  env,
});

export interface ComponentProcess {
  name: string;
  component: ComponentName;
  proc: Running;
}

/** Turns settings into the environment a component process reads. */
export function envOf(settings: Record<string, string>): Record<string, string> {
  return { ENV_FILE: '/nonexistent/.env', LOG_LEVEL: 'warn', ...settings };
}

/**
 * Starts one process of `component` and waits until it consumes (or listens).
 * @param options.timeoutMs how long it may take to start (ms); on a loaded 2-core machine, several
 *   processes starting at once take a while (a component needs about 1.2 s of CPU to start; with
 *   another suite beside this one, a core is shared ten ways and more). @defaultValue 60000
 * @param options.launcher how to start it. @defaultValue {@link nodeLauncher}
 */
export async function startComponent(
  component: ComponentName,
  name: string,
  settings: Record<string, string>,
  options: { timeoutMs?: number; launcher?: ComponentLauncher } = {},
): Promise<ComponentProcess> {
  const launch = (options.launcher ?? nodeLauncher)(
    component,
    name,
    envOf({ ...settings, CONSUMER_NAME: name, LOG_LEVEL: 'info' }),
  );
  const proc = start(launch.command, launch.args, launch.env ? { env: launch.env } : {});
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (!/"msg":"started"/.test(proc.stdout())) {
    const exited = proc.child.exitCode !== null || proc.child.signalCode !== null;
    if (exited || Date.now() > deadline) {
      if (!exited) proc.child.kill('SIGKILL');
      const how = exited ? `exited (${proc.child.exitCode ?? proc.child.signalCode})` : 'timed out';
      throw new Error(
        `${name} did not start (${how}): ${proc.stderr()}\n${proc.stdout().slice(-2000)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { name, component, proc };
}

export async function stopComponent(
  c: ComponentProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (c.proc.child.exitCode !== null || c.proc.child.signalCode !== null) return;
  c.proc.child.kill(signal);
  await c.proc.exited;
}
