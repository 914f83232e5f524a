/**
 * The container image's rules, checked on the Dockerfile itself (no container builder is needed):
 * multi-stage from node:20-bookworm-slim, dependencies from the lock file with `npm ci`, only the
 * production ones in the runtime stage (and nothing the runtime imports is a dev dependency), an
 * unprivileged user, a health check, nothing fetched by ADD; and the entry point runs what it is
 * told (a component, `migrate`, `healthcheck`) and refuses anything else.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { migrationLockName } from '../../scripts/lib/migrate.ts';
import { createDb } from '../../src/shared/db.ts';
import { run } from '../support/run.ts';
import { DATABASE_URL, ROOT, uniqueName } from '../support/services.ts';

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments left out. */
function instructions(text: string): Instruction[] {
  const logical: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line) && current === '') continue;
    if (/\\\s*$/.test(line)) {
      current += `${line.replace(/\\\s*$/, '')} `;
      continue;
    }
    current += line;
    if (current.trim()) logical.push(current.trim());
    current = '';
  }
  return logical.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });
}

/** The instructions split by stage (each starting at its FROM). */
function stages(all: Instruction[]): Instruction[][] {
  const out: Instruction[][] = [];
  for (const i of all) {
    if (i.keyword === 'FROM') out.push([]);
    out[out.length - 1]?.push(i);
  }
  return out;
}

/** Every file under `dir` with one of the extensions. */
function filesUnder(dir: string, extensions: string[]): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, extensions));
    else if (extensions.some((e) => name.endsWith(e))) out.push(path);
  }
  return out;
}

/** Packages a source file loads at run time (type-only imports are erased, so left out). */
function runtimePackages(source: string): string[] {
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/^\s*(?:import|export)\s+type\s[\s\S]*?from\s+['"][^'"]+['"];?/gm, '');
  const specifiers = [
    ...code.matchAll(
      /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm,
    ),
  ].map((m) => m[1]!);
  return specifiers
    .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!));
}

describe('Dockerfile', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const all = instructions(text);
  const [build = [], runtime = []] = stages(all);
  const runs = (stage: Instruction[]) =>
    stage.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };

  it('when read, then it has a build and a runtime stage, both from the base argument, node:20-bookworm-slim by default', () => {
    const froms = all.filter((i) => i.keyword === 'FROM').map((i) => i.args);
    expect(froms).to.deep.equal(['${BASE_IMAGE} AS build', '${BASE_IMAGE} AS runtime']);
    const firstFrom = all.findIndex((i) => i.keyword === 'FROM');
    const args = all.slice(0, firstFrom).filter((i) => i.keyword === 'ARG');
    expect(args.map((i) => i.args)).to.deep.equal(['BASE_IMAGE=node:20-bookworm-slim']);
  });

  it('when dependencies are installed, then always with npm ci from the lock file and the project .npmrc', () => {
    for (const stage of [build, runtime]) {
      const npmRuns = runs(stage).filter((r) => /\bnpm\b/.test(r));
      for (const r of npmRuns) expect(r, r).not.to.match(/\bnpm\s+(install|i|add|update)\b/);
      const ci = stage.findIndex((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
      expect(ci, 'npm ci in each stage').to.be.greaterThan(0);
      const lockCopied = stage
        .slice(0, ci)
        .some(
          (i) =>
            i.keyword === 'COPY' && /package-lock\.json/.test(i.args) && /\.npmrc/.test(i.args),
        );
      expect(lockCopied, 'package-lock.json and .npmrc copied before npm ci').to.equal(true);
    }
    expect(runs(build).join('\n')).to.match(/npm run build\b/);
    expect(runs(build).join('\n')).to.match(/npm run console:build/);
  });

  it('when the runtime stage installs, then it leaves the dev dependencies out and takes only the builds (components, console) from the build stage', () => {
    expect(runs(runtime).join('\n')).to.match(/npm ci --omit=dev/);
    const fromBuild = runtime.filter((i) => i.keyword === 'COPY' && i.args.includes('--from='));
    expect(fromBuild.map((i) => i.args)).to.deep.equal([
      '--from=build /app/dist ./dist',
      '--from=build /app/console/dist ./console/dist',
    ]);
    const sources = runtime.filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='));
    for (const copy of sources)
      expect(copy.args, 'no TypeScript in the runtime').not.to.match(/\.ts\b|\bsrc\b/);
  });

  it('when the runtime stage ends, then it runs as an unprivileged user with a health check and an exec-form entry point', () => {
    const users = runtime.filter((i) => i.keyword === 'USER').map((i) => i.args);
    const user = users[users.length - 1] ?? 'root';
    expect(user).not.to.match(/^(root|0)(:|$)/);
    expect(user, 'numeric, so runAsNonRoot can check it').to.match(/^[1-9]\d*(:\d+)?$/);
    const health = runtime.find((i) => i.keyword === 'HEALTHCHECK');
    // sh, not Node: a check every 10 s starts no second Node (the api's hands over to Node).
    expect(health?.args).to.match(/CMD \["sh", "scripts\/healthcheck\.sh"\]/);
    const entry = runtime.find((i) => i.keyword === 'ENTRYPOINT');
    expect(() => JSON.parse(entry?.args ?? '') as unknown, 'exec form').not.to.throw();
    expect(runtime.map((i) => i.keyword).lastIndexOf('USER')).to.be.lessThan(
      runtime.map((i) => i.keyword).indexOf('ENTRYPOINT'),
    );
  });

  it('when files are added, then never from a URL, and every copied path exists and is not left out of the build context', () => {
    expect(all.filter((i) => i.keyword === 'ADD' && /https?:\/\//.test(i.args))).to.deep.equal([]);
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).to.include.members(['.git', 'node_modules', '.env-dev', '.env-*']);
    for (const copy of all.filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))) {
      const sources = copy.args.split(/\s+/).slice(0, -1);
      for (const source of sources) {
        expect(existsSync(join(ROOT, source)), `${source} exists`).to.equal(true);
        const top = source.split('/')[0]!;
        expect(ignored, `${source} is in the build context`).not.to.include(top);
      }
    }
  });

  it('when the runtime’s sources are scanned, then everything they import is a production dependency', () => {
    const copied = [
      ...filesUnder(join(ROOT, 'src'), ['.ts', '.mjs']),
      ...filesUnder(join(ROOT, 'migrations'), ['.ts']),
      join(ROOT, 'knexfile.ts'),
      join(ROOT, 'scripts/healthcheck.mjs'),
    ];
    const wrong = new Set<string>();
    const found = new Set<string>();
    for (const file of copied) {
      for (const name of runtimePackages(readFileSync(file, 'utf8'))) {
        found.add(name);
        if (!(name in pkg.dependencies)) wrong.add(`${name} (${file.slice(ROOT.length)})`);
      }
    }
    expect([...found], 'the scan sees the imports').to.include.members([
      'ioredis',
      'koa',
      'bullmq',
    ]);
    expect([...wrong], 'imported at run time but not in dependencies').to.deep.equal([]);
    expect(
      runtimePackages("import nock from 'nock';\nimport type { A } from 'chai';"),
    ).to.deep.equal(['nock']);
    // The entry point runs knex itself, and the components compiled: no TypeScript loader.
    expect(pkg.dependencies).to.include.keys('knex');
    expect(pkg.dependencies).not.to.include.keys('tsx');
    expect(readFileSync(join(ROOT, 'scripts/container-entrypoint.sh'), 'utf8')).not.to.match(
      /tsx|\.ts\b/,
    );
  });
});

describe('container entry point', function () {
  this.timeout(60_000);
  const entry = (args: string[], env: Record<string, string> = {}) =>
    run('sh', ['scripts/container-entrypoint.sh', ...args], { env, timeoutMs: 50_000 });

  it('when given an unknown command or none, then it exits 2 with the usage', async () => {
    for (const args of [['nope'], []]) {
      const result = await entry(args);
      expect(result.code).to.equal(2);
      expect(result.stderr).to.match(/usage: <image> api\|channel/);
    }
  });

  it('when told healthcheck, then it runs the health check', async () => {
    const result = await entry(['healthcheck', '/nonexistent/botwire.health']);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(/is missing/);
  });

  it('when told migrate on an empty schema, then every migration runs', async () => {
    const schema = uniqueName('m');
    const db = createDb(DATABASE_URL, { poolMax: 1 });
    try {
      await db.raw('create schema ??', [schema]);
      const result = await entry(['migrate'], {
        DATABASE_URL,
        DATABASE_SCHEMA: schema,
      });
      expect(result.code, result.stderr).to.equal(0);
      const migrations = readdirSync(join(ROOT, 'migrations')).filter((f) => f.endsWith('.ts'));
      const done = await db
        .withSchema(schema)
        .table('knex_migrations')
        .count<{ count: string }[]>('* as count');
      expect(Number(done[0]?.count)).to.equal(migrations.length);
    } finally {
      await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    }
  });

  it('when a migrate starts while another holds the migration lock of its schema, then it waits for it, and a migrate of another schema does not', async () => {
    const [held, free] = [uniqueName('m'), uniqueName('m')];
    const db = createDb(DATABASE_URL, { poolMax: 2 });
    const holder = await db.client.acquireConnection();
    try {
      for (const schema of [held, free]) await db.raw('create schema ??', [schema]);
      const lock = ['select pg_advisory_lock(hashtext(?))', [migrationLockName(held)]] as const;
      await db.raw(lock[0], [...lock[1]]).connection(holder);
      const waiting = entry(['migrate'], { DATABASE_URL, DATABASE_SCHEMA: held });
      const other = await entry(['migrate'], { DATABASE_URL, DATABASE_SCHEMA: free });
      expect(other.code, other.stderr).to.equal(0);
      expect(other.stdout).to.match(/^Batch 1 run: \d+ migrations$/m);
      const settled = await Promise.race([
        waiting.then(() => 'done'),
        sleep(2000).then(() => 'waiting'),
      ]);
      expect(settled, 'the migrate of the locked schema').to.equal('waiting');
      await db
        .raw('select pg_advisory_unlock(hashtext(?))', [migrationLockName(held)])
        .connection(holder);
      const result = await waiting;
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout).to.match(/^Batch 1 run: \d+ migrations$/m);
      const again = await entry(['migrate'], { DATABASE_URL, DATABASE_SCHEMA: held });
      expect([again.code, again.stdout.trim()]).to.deep.equal([0, 'Already up to date']);
    } finally {
      await db.client.releaseConnection(holder);
      for (const schema of [held, free]) await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    }
  });

  it('when four pods migrate one empty schema at once (their init containers), three times over, then each exits 0 and every migration runs once', async () => {
    // Without the advisory lock, about one round in three left two lock rows in knex's table and
    // every pod refused as "already locked", nothing migrated.
    const db = createDb(DATABASE_URL, { poolMax: 1 });
    const migrations = readdirSync(join(ROOT, 'migrations')).filter((f) => f.endsWith('.ts'));
    try {
      for (let round = 1; round <= 3; round += 1) {
        const schema = uniqueName('m');
        try {
          await db.raw('create schema ??', [schema]);
          const results = await Promise.all(
            [1, 2, 3, 4].map(() => entry(['migrate'], { DATABASE_URL, DATABASE_SCHEMA: schema })),
          );
          for (const result of results) expect(result.code, result.stderr).to.equal(0);
          const done = await db
            .withSchema(schema)
            .table('knex_migrations')
            .select<{ name: string }[]>('name');
          expect(done.map((row) => row.name).sort(), `round ${round}`).to.deep.equal(
            migrations.sort(),
          );
          const locks = await db.withSchema(schema).table('knex_migrations_lock').count('* as n');
          expect(Number(locks[0]?.n), `lock rows, round ${round}`).to.equal(1);
        } finally {
          await db.raw('drop schema if exists ?? cascade', [schema]);
        }
      }
    } finally {
      await db.destroy();
    }
  });
});
