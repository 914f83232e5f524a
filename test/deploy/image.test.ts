/**
 * The container image, built and run for real (`./scripts/image.sh build`, podman): the image's
 * `migrate`, then every component as its own container on the host's network with a read-only
 * root file system, against the tests' Redis and Postgres and a stand-in Telegram; a Telegram
 * update answered through them; each container running as uid 1000 and healthy by the image's
 * own HEALTHCHECK; SIGTERM drains a container and it exits 0. `./scripts/image.sh test` runs this
 * file alone.
 */
import { expect } from 'chai';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createDb } from '../../src/shared/db.ts';
import { postTelegramUpdate, telegramText } from '../support/api.ts';
import { productionNodeOptions, type ComponentLauncher } from '../support/components.ts';
import { startFaultSystem, type FaultSystem } from '../support/fault-system.ts';
import { run, type RunResult } from '../support/run.ts';
import { DATABASE_URL, uniqueName, waitFor } from '../support/services.ts';

const onPath = (name: string): boolean =>
  (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(`${dir}/${name}`));

/** podman is here, or image.sh can install it (as root). */
const canHaveEngine = (): boolean => process.getuid?.() === 0 || onPath('podman');

/**
 * Whether this process runs in a chroot (its `/` is not pid 1's), as on the fresh machine
 * (../shared/tools/fresh-machine.sh). runc cannot exec into a container from a chroot
 * (opencontainers/runc#1499: the process lands in the namespace's root, "chdir to cwd (\"/app\")
 * ... no such file or directory"), so `podman exec` and `podman healthcheck run` fail there.
 */
function inChroot(): boolean {
  try {
    const [here, init] = [statSync('/'), statSync('/proc/1/root/')];
    return here.dev !== init.dev || here.ino !== init.ino;
  } catch {
    return false; // /proc/1/root unreadable (not root): not a machine we made
  }
}

describe('the container image, built and run (podman)', function () {
  this.timeout(180_000);
  let image = '';
  let runArgs: string[] = [];
  let system: FaultSystem | undefined;
  const suffix = randomBytes(3).toString('hex');
  const containers: string[] = [];
  const podman = (args: string[], timeoutMs = 60_000): Promise<RunResult> =>
    run('podman', args, { timeoutMs });

  /**
   * The image's HEALTHCHECK, run in `container`: `podman healthcheck run`; from a chroot (above),
   * the same command from the image's configuration, run by nsenter in the container's
   * namespaces, root, working folder, user and environment, which is what runc's exec does.
   */
  async function healthcheck(container: string): Promise<RunResult> {
    if (!inChroot()) return podman(['healthcheck', 'run', container]);
    const inspected = await podman([
      'inspect',
      '--format',
      '{"test":{{json .Config.Healthcheck.Test}},"env":{{json .Config.Env}},"user":{{json .Config.User}},"pid":{{.State.Pid}}}',
      container,
    ]);
    const { test, env, user, pid } = JSON.parse(inspected.stdout) as {
      test: string[];
      env: string[];
      user: string;
      pid: number;
    };
    expect(test[0], 'HEALTHCHECK form').to.equal('CMD');
    const [uid = '0', gid = uid] = user.split(':');
    const namespaces = ['-m', '-u', '-i', '-n', '-p', '-r', '-w', '-S', uid, '-G', gid];
    return run(
      'nsenter',
      ['-t', String(pid), ...namespaces, '--', 'env', '-i', ...env, ...test.slice(1)],
      {
        timeoutMs: 10_000,
      },
    );
  }

  before(async function () {
    // Building needs podman, which image.sh installs with apt-get when it runs as root (CI and
    // the fresh machine do); elsewhere, without podman, there is nothing to build with.
    if (!canHaveEngine()) this.skip();
    this.timeout(30 * 60_000); // the first build also makes the local base (debootstrap)
    const built = await run('bash', ['scripts/image.sh', 'build'], { timeoutMs: 29 * 60_000 });
    expect(built.code, `image.sh build:\n${built.stderr.slice(-4000)}`).to.equal(0);
    image = built.stdout.trim().split('\n').pop()!;
    const args = await run('bash', ['scripts/image.sh', 'run-args']);
    expect(args.code, args.stderr).to.equal(0);
    runArgs = args.stdout.trim().split('\n').filter(Boolean);
  });

  after(async () => {
    if (containers.length > 0) {
      // --ignore: one already gone (flow's, stopped below) must not keep the others running.
      const removed = await podman(['rm', '--force', '--ignore', '--time', '0', ...containers]);
      expect(removed.code, `podman rm: ${removed.stderr}`).to.equal(0);
    }
    await system?.close();
  });

  it('when told migrate on an empty schema, then every migration runs, recorded by its source name', async () => {
    const schema = uniqueName('img');
    const db = createDb(DATABASE_URL, { poolMax: 1 });
    try {
      await db.raw('create schema ??', [schema]);
      const result = await podman([
        'run',
        '--rm',
        '--network',
        'host',
        ...runArgs,
        '-e',
        `DATABASE_URL=${DATABASE_URL}`,
        '-e',
        `DATABASE_SCHEMA=${schema}`,
        image,
        'migrate',
      ]);
      expect(result.code, result.stderr).to.equal(0);
      const names = await db.withSchema(schema).table('knex_migrations').pluck<string[]>('name');
      expect(names.length).to.be.greaterThan(20);
      for (const name of names) expect(name).to.match(/^\d{14}_[a-z0-9_]+\.ts$/);
    } finally {
      await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    }
  });

  it('when every component runs as its own container with a read-only root, then a Telegram update is answered, each runs as uid 1000 and is healthy by the image’s HEALTHCHECK', async () => {
    const launcher: ComponentLauncher = (component, name, env) => {
      const container = `bw-image-test-${suffix}-${name}`;
      containers.push(container);
      const storage = env.STORAGE_DIR;
      if (storage) chmodSync(storage, 0o777); // uploads are written by the image's uid 1000
      return {
        command: 'podman',
        args: [
          'run',
          '--rm',
          '--name',
          container,
          '--network',
          'host',
          '--read-only',
          // The check runs when asked (below): podman's timer needs systemd, absent here.
          '--health-interval',
          'disable',
          ...runArgs,
          ...(storage ? ['-v', `${storage}:${storage}`] : []),
          ...Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
          image,
          component,
        ],
      };
    };
    system = await startFaultSystem({ launcher });

    const chat = 7001;
    const answer = await postTelegramUpdate(
      system.edge,
      system.telegram.appId,
      system.telegram.secret,
      telegramText(chat, 1, 'hello from a container'),
    );
    expect(answer.status).to.equal(200);
    const stub = system.stub;
    await waitFor(
      () =>
        stub.calls.find(
          (c) => c.method === 'sendMessage' && c.chat === String(chat) && c.delivered,
        ),
      { timeoutMs: 30_000, what: 'the echo reply at the stand-in Telegram' },
    );
    expect(
      stub.calls
        .filter((c) => c.method === 'sendMessage' && c.chat === String(chat))
        .map((c) => c.text),
    ).to.deep.equal(['echo: hello from a container']);

    for (const [component, process] of system.processes) {
      const container = `bw-image-test-${suffix}-${process.name}`;
      // The component's process as the kernel sees it, read from here (no exec).
      const pid = await podman(['inspect', '--format', '{{.State.Pid}}', container]);
      const status = readFileSync(`/proc/${pid.stdout.trim()}/status`, 'utf8');
      expect(/^Uid:\s+(\d+)/m.exec(status)?.[1], `${component} runs as`).to.equal('1000');
      // With production's V8 flags (scripts/node-options.sh), put there by the entry point.
      const environ = readFileSync(`/proc/${pid.stdout.trim()}/environ`, 'utf8').split('\0');
      expect(environ, `${component}'s environment`).to.include(
        `NODE_OPTIONS=${productionNodeOptions(component).join(' ')}`,
      );
      // Its root is mounted read-only, as its own mount table says.
      const root = readFileSync(`/proc/${pid.stdout.trim()}/mountinfo`, 'utf8')
        .split('\n')
        .find((line) => line.split(' ')[4] === '/');
      expect(root?.split(' ')[5]?.split(','), `${component}'s root mount`).to.include('ro');
      await waitFor(async () => (await healthcheck(container)).code === 0, {
        timeoutMs: 30_000,
        intervalMs: 1000,
        what: `${component}'s HEALTHCHECK`,
      });
    }
  });

  it('when a container is sent SIGTERM, then its component drains and it exits 0', async () => {
    if (!system) throw new Error('the components did not start (see the test above)');
    const flow = system.processes.get('flow')!;
    flow.proc.child.kill('SIGTERM'); // the podman client passes it on to the container
    const exit = await Promise.race([
      flow.proc.exited,
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000)),
    ]);
    expect(exit, flow.proc.stderr()).to.deep.equal({ code: 0, signal: null });
    const lines = flow.proc.stdout().split('\n').filter(Boolean);
    expect(
      lines.some((line) => /"msg":"draining"/.test(line)),
      'drained',
    ).to.equal(true);
    expect(lines.at(-1)).to.match(/"msg":"stopped"/);
  });
});
