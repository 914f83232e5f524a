/**
 * Health and shutdown as a container runtime sees them: a real worker process keeps its health
 * file fresh and `scripts/healthcheck.mjs` (and the probes' `scripts/healthcheck.sh`, alike) says
 * ready, then not ready while its Redis is gone, and stale while the process is stopped (a stuck
 * loop); the api on SIGTERM answers /readyz 503 for
 * API_DRAIN_DELAY_MS while it still serves, then closes and exits 0.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startComponent, stopComponent, type ComponentProcess } from '../support/components.ts';
import { freePort, startPrivateRedis, type PrivateRedis } from '../support/private-services.ts';
import { run } from '../support/run.ts';
import {
  createTestSchema,
  uniquePrefix,
  urlWithSchema,
  waitFor,
  type TestSchema,
} from '../support/services.ts';

/**
 * How often the components write their health file; stale after three intervals. A process on a
 * loaded machine (a second suite beside this one) may go unscheduled for most of a second, so a
 * shorter one would call it stuck.
 */
const INTERVAL_MS = 1000;

/**
 * The two checks of one health file: the container image's (Node) and the Kubernetes probes'
 * (sh, no Node started), held to the same answers.
 */
const CHECKS = [
  { name: 'healthcheck.mjs', command: ['node', 'scripts/healthcheck.mjs'] },
  { name: 'healthcheck.sh', command: ['sh', 'scripts/healthcheck.sh'] },
] as const;

type Check = (typeof CHECKS)[number];

async function healthcheck(
  check: Check,
  file: string,
  ...flags: string[]
): Promise<{ code: number | null; out: string }> {
  const [command, ...args] = check.command;
  const result = await run(command, [...args, ...flags, file], { timeoutMs: 15_000 });
  return { code: result.code, out: `${result.stdout}${result.stderr}`.trim() };
}

/** Waits until the health check exits with `code`; resolves to its last line. */
async function healthcheckUntil(
  check: Check,
  file: string,
  code: number,
  flags: string[] = [],
  timeoutMs = 20_000,
): Promise<string> {
  let last = '';
  await waitFor(
    async () => {
      const result = await healthcheck(check, file, ...flags);
      last = result.out;
      return result.code === code;
    },
    {
      timeoutMs,
      intervalMs: 100,
      what: `${check.name} ${flags.join(' ')} exit ${code} (${last})`,
    },
  );
  return last;
}

describe('health file and health check', function () {
  this.timeout(240_000);
  let redis: PrivateRedis;
  let schema: TestSchema;
  let dir: string;
  const running: ComponentProcess[] = [];

  before(async () => {
    redis = await startPrivateRedis();
    schema = await createTestSchema();
    dir = mkdtempSync(join(tmpdir(), 'botwire-health-'));
  });

  after(async () => {
    for (const c of running) await stopComponent(c, 'SIGKILL');
    await redis?.close();
    await schema?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const settings = (file: string): Record<string, string> => ({
    REDIS_URL: redis.url,
    DATABASE_URL: urlWithSchema(schema.schema),
    STREAM_PREFIX: uniquePrefix(),
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    ADMIN_API_KEY: randomBytes(24).toString('hex'),
    CONSUMER_LEASE_MS: '1500',
    CONSUMER_BLOCK_MS: '200',
    HEALTH_FILE: file,
    HEALTH_INTERVAL_MS: String(INTERVAL_MS),
    SHUTDOWN_TIMEOUT_MS: '5000',
  });

  for (const check of CHECKS) {
    it(`when the health file is missing, then ${check.name} fails and says so`, async () => {
      const result = await healthcheck(check, join(dir, 'none'));
      expect(result.code).to.equal(1);
      expect(result.out).to.match(/missing/);
    });

    it(`when a worker runs, then ${check.name} says it is ready; without Redis, not ready but alive; stopped, stale; after SIGTERM, the file is gone`, async () => {
      const file = join(dir, `retriver-${check.name}.health`);
      const worker = await startComponent('retriver', `health-${Date.now()}`, settings(file));
      running.push(worker);
      const pid = worker.proc.child.pid!;

      expect(await healthcheckUntil(check, file, 0)).to.match(/retriver .*ready: redis ok/);

      await redis.stop();
      expect(await healthcheckUntil(check, file, 1)).to.match(/not ready: redis unreachable/);
      const live = await healthcheck(check, file, '--live');
      expect(live.code, live.out).to.equal(0);
      expect(live.out).to.match(/retriver .*alive: redis unreachable/);

      await redis.start();
      await healthcheckUntil(check, file, 0);

      // A stopped process stands for a stuck one: nothing rewrites the file any more.
      process.kill(pid, 'SIGSTOP');
      try {
        expect(await healthcheckUntil(check, file, 1, ['--live'])).to.match(/stopped turning/);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await healthcheckUntil(check, file, 0);

      await stopComponent(worker);
      expect(await worker.proc.exited).to.deep.equal({ code: 0, signal: null });
      expect(existsSync(file)).to.equal(false);
    });
  }

  it('when the api gets SIGTERM, then /readyz answers 503 while it still serves for the drain delay, then it closes and exits 0', async () => {
    const file = join(dir, 'api.health');
    const port = await freePort();
    const api = await startComponent('api', `health-api-${Date.now()}`, {
      ...settings(file),
      API_HOST: '127.0.0.1',
      API_PORT: String(port),
      API_DRAIN_DELAY_MS: '3000',
    });
    running.push(api);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/readyz`)).status).to.equal(200);
    // The api's file names its /healthz: the probes' sh check hands it to healthcheck.mjs.
    expect(await healthcheckUntil(CHECKS[1], file, 0)).to.match(
      /api .*ready: redis ok, postgres ok/,
    );

    const signalled = Date.now();
    api.proc.child.kill('SIGTERM');
    await waitFor(async () => (await fetch(`${base}/readyz`)).status === 503, {
      what: '/readyz 503',
    });
    const draining = await fetch(`${base}/readyz`);
    expect(await draining.json()).to.deep.equal({ status: 'draining', checks: {} });
    // Still serving: what is on its way is answered.
    expect((await fetch(`${base}/healthz`)).status).to.equal(200);
    expect(await healthcheckUntil(CHECKS[1], file, 1)).to.match(/not ready/);

    const exited = await api.proc.exited;
    expect(exited).to.deep.equal({ code: 0, signal: null });
    expect(Date.now() - signalled).to.be.at.least(3000);
    expect(existsSync(file)).to.equal(false);
    const refused = await fetch(`${base}/healthz`).then(
      () => 'answered',
      () => 'refused',
    );
    expect(refused).to.equal('refused');
  });
});
