/**
 * ./scripts/run.sh as an operator runs it: one component from an env file of the test's own, with
 * its own database and stream prefix, drained by SIGTERM; and its refusals of bad arguments.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SETTINGS } from '../src/config.ts';
import { createDb } from '../src/shared/db.ts';
import type { Redis } from '../src/shared/redis.ts';
import { productionNodeOptions } from './support/components.ts';
import { run, start, type Running } from './support/run.ts';
import {
  connectRedis,
  DATABASE_URL,
  dropPrefix,
  REDIS_URL,
  uniqueName,
  uniquePrefix,
  waitFor,
} from './support/services.ts';

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function healthStatus(port: number): Promise<number | undefined> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) }))
      .status;
  } catch {
    return undefined;
  }
}

/** Node processes whose parent is `pid` (the components run.sh started). */
function nodeChildren(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there are none
  }
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm === 'node')
    .map(([child]) => Number(child));
}

/** Whether the process `pid` still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('./scripts/run.sh', () => {
  const database = uniqueName('bw_run');
  const databaseUrl = Object.assign(new URL(DATABASE_URL), { pathname: `/${database}` }).toString();
  const dir = mkdtempSync(join(tmpdir(), 'botwire-run-'));
  const envFile = join(dir, '.env-run-test');
  const prefix = uniquePrefix();
  let port: number;
  let redis: Redis;
  /** Every run.sh a test started: one that timed out is still running when the next starts. */
  const runners: Running[] = [];
  /** Components run.sh started: they run in sessions of their own, so cleanup kills them too. */
  let componentPids: number[] = [];

  /**
   * The file's settings, also passed in the environment so that whatever the shell running the
   * tests exports cannot win over the file; every other setting is blanked (empty means default).
   */
  let settings: Record<string, string>;

  before(async () => {
    port = await freePort();
    settings = {
      REDIS_URL,
      DATABASE_URL: databaseUrl,
      API_HOST: '127.0.0.1',
      API_PORT: String(port),
      ADMIN_API_KEY: 'run-script-test-admin-key-0123456789',
      CREDENTIALS_KEY: Buffer.alloc(32, 3).toString('base64'),
      STREAM_PREFIX: prefix,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '10000',
    };
    writeFileSync(
      envFile,
      `# run.sh test\n${Object.entries(settings)
        .map(([key, value]) => `${key}=${value}`)
        .join('\n')}\n`,
    );
    const admin = createDb(DATABASE_URL, { poolMax: 1 });
    await admin.raw('create database ??', [database]);
    await admin.destroy();
    redis = connectRedis();
  });

  after(async () => {
    for (const runner of runners) {
      if (runner.child.exitCode !== null || runner.child.signalCode !== null) continue;
      // A failed test left run.sh running: its components would outlive it in their own sessions.
      componentPids.push(...nodeChildren(runner.child.pid!));
      runner.child.kill('SIGKILL');
      await runner.exited;
    }
    for (const pid of componentPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await dropPrefix(redis, prefix);
    redis.disconnect();
    const admin = createDb(DATABASE_URL, { poolMax: 1 });
    await admin.raw('drop database if exists ?? with (force)', [database]);
    await admin.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (): Record<string, string> => ({
    ...Object.fromEntries(Object.keys(SETTINGS).map((key) => [key, ''])),
    ...settings,
    DATABASE_SCHEMA: '',
  });

  it('when started with -e <file> api, then only api runs, serves /healthz, prefixes its logs, and drains on SIGTERM', async function () {
    this.timeout(120_000); // its wait for /healthz alone may take 60 s on a busy machine
    const proc = start('./scripts/run.sh', ['-e', envFile, 'api'], { env: env() });
    runners.push(proc);
    const what = (): string => `/healthz 200 (stderr: ${proc.stderr()}\nstdout: ${proc.stdout()})`;
    await waitFor(
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`run.sh exited early: ${what()}`);
        return (await healthStatus(port)) === 200;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: what() },
    );
    componentPids = nodeChildren(proc.child.pid!);
    expect(componentPids, 'one component process').to.have.length(1);
    // With production's V8 flags (scripts/node-options.sh) in front of NODE_OPTIONS.
    const environ = readFileSync(`/proc/${componentPids[0]}/environ`, 'utf8').split('\0');
    const nodeOptions = environ.find((entry) => entry.startsWith('NODE_OPTIONS='));
    expect(nodeOptions, "the component's NODE_OPTIONS").to.match(
      new RegExp(`^NODE_OPTIONS=${productionNodeOptions('api').join(' ')}( |$)`),
    );

    const lines = proc.stdout().split('\n').filter(Boolean);
    expect(lines.length, 'log lines on stdout').to.be.greaterThan(0);
    for (const line of lines) expect(line).to.match(/^\[api\] /);

    const stoppedAt = Date.now();
    proc.child.kill('SIGTERM');
    const exit = await Promise.race([
      proc.exited,
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000)),
    ]);
    expect(exit, `run.sh did not exit within 15 s of SIGTERM: ${proc.stderr()}`).to.not.equal(
      'timeout',
    );
    expect(exit).to.deep.equal({ code: 0, signal: null });
    expect(Date.now() - stoppedAt).to.be.lessThan(15_000);
    expect(await isListening(port), 'the api port is closed').to.equal(false);

    const prefixes = new Set(
      proc
        .stdout()
        .split('\n')
        .filter(Boolean)
        .map((line) => /^\[([a-z]+)\] /.exec(line)?.[1]),
    );
    expect([...prefixes]).to.deep.equal(['api']);
    for (const pid of componentPids)
      expect(alive(pid), `component pid ${pid} ended`).to.equal(false);
  });

  it('when a component fails at start, then run.sh names it with its last log line, stops the others and exits 1 without looping', async function () {
    this.timeout(150_000); // the set-up (services, migrations) takes a while on a busy machine
    const failing = join(dir, '.env-run-failing');
    const broken = { ...settings, ADMIN_API_KEY: '' };
    writeFileSync(
      failing,
      Object.entries(broken)
        .map(([key, value]) => `${key}=${value}`)
        .join('\n'),
    );
    const result = await run('./scripts/run.sh', ['-e', failing, 'api', 'flow'], {
      env: { ...env(), ADMIN_API_KEY: '' },
      timeoutMs: 120_000,
    });
    expect(result.signal, `run.sh did not end by itself: ${result.stderr}`).to.equal(null);
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stderr, result.stderr).to.match(
      /run\.sh: api exited with 78 \(a bad setting\); its last log line: .*ADMIN_API_KEY is required by api/,
    );
    expect(result.stderr).to.contain('run.sh: stopping the others');
    expect(result.stderr).not.to.contain('no such job');
    const runLines = result.stderr.split('\n').filter((line) => line.startsWith('run.sh:'));
    expect(runLines, result.stderr).to.have.length.below(6);
    const prefixes = new Set(
      result.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.slice(0, 6)),
    );
    expect(
      [...prefixes].every((p) => p === '[api] ' || p === '[flow]'),
      result.stdout,
    ).to.equal(true);
  });

  it('when SIGTERM arrives while the components are still starting, then every one stops and run.sh exits 0', async function () {
    this.timeout(150_000); // the set-up (services, migrations) takes a while on a busy machine
    const proc = start('./scripts/run.sh', ['-e', envFile, 'api', 'flow'], { env: env() });
    runners.push(proc);
    await waitFor(
      () => {
        if (proc.child.exitCode !== null) throw new Error(`run.sh exited early: ${proc.stderr()}`);
        return proc.stderr().includes('run.sh: started');
      },
      { timeoutMs: 90_000, intervalMs: 20, what: `run.sh's "started" line (${proc.stderr()})` },
    );
    componentPids = nodeChildren(proc.child.pid!);
    proc.child.kill('SIGTERM');
    const exit = await Promise.race([
      proc.exited,
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000)),
    ]);
    expect(exit, `run.sh did not exit within 30 s of SIGTERM: ${proc.stderr()}`).to.deep.equal({
      code: 0,
      signal: null,
    });
    expect(proc.stderr()).to.contain('run.sh: stopping api flow');
    expect(proc.stderr()).not.to.contain('no such job');
    for (const pid of componentPids)
      expect(alive(pid), `component pid ${pid} ended`).to.equal(false);
  });

  it('when the component is unknown, then it exits non-zero with "unknown component"', async () => {
    const result = await run('./scripts/run.sh', ['-e', envFile, 'nope'], { env: env() });
    expect(result.code).to.not.equal(0);
    expect(result.stderr).to.contain("unknown component 'nope'");
    expect(result.stdout).to.equal('');
  });

  it('when the env file does not exist, then it exits non-zero naming the file', async () => {
    const result = await run('./scripts/run.sh', ['-e', '/does/not/exist', 'api'], { env: env() });
    expect(result.code).to.not.equal(0);
    expect(result.stderr).to.contain('/does/not/exist');
    expect(result.stderr).to.contain('not found');
  });
});

describe('scripts/node-options.sh (sourced by run.sh and the image entry point)', () => {
  /**
   * What `bw_component_node_options <component>` prints under POSIX sh with `set -eu`, as the
   * image's entry point runs it; with NODE_OPTIONS unset when `nodeOptions` is undefined.
   */
  async function optionsFor(component: string, nodeOptions?: string): Promise<string> {
    const script = 'set -eu; . scripts/node-options.sh; bw_component_node_options "$1"';
    const result = await run('env', [
      ...(nodeOptions === undefined ? ['-u', 'NODE_OPTIONS'] : [`NODE_OPTIONS=${nodeOptions}`]),
      'sh',
      '-c',
      script,
      'sh',
      component,
    ]);
    expect(result.code, result.stderr).to.equal(0);
    return result.stdout;
  }

  it("when a component is named, then the api gets the api's flags, every worker the workers', and an operator's NODE_OPTIONS comes after", async () => {
    const api = productionNodeOptions('api').join(' ');
    const worker = productionNodeOptions('flow').join(' ');
    expect(api, 'the api has flags of its own').to.not.equal(worker);
    expect(await optionsFor('api')).to.equal(api);
    expect(await optionsFor('api', ''), 'NODE_OPTIONS empty').to.equal(api);
    for (const component of ['channel', 'language', 'flow', 'retriver', 'indexer']) {
      expect(await optionsFor(component), component).to.equal(worker);
    }
    expect(await optionsFor('api', '--max-semi-space-size=16 --trace-gc')).to.equal(
      `${api} --max-semi-space-size=16 --trace-gc`,
    );
    expect(await optionsFor('flow', '--trace-gc')).to.equal(`${worker} --trace-gc`);
  });

  it('when no component is named, then it fails with a line saying so instead of guessing', async () => {
    const result = await run('sh', ['-c', '. scripts/node-options.sh; bw_component_node_options']);
    expect(result.code).to.not.equal(0);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.contain('name the component');
  });
});
