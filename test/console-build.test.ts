/**
 * bw_ensure_console (scripts/lib/common.sh), which run.sh and test.sh call: the console is built
 * when its build is missing or older than its sources, with one line saying so, and left alone
 * otherwise. Built into a temporary folder (BW_CONSOLE_DIST), so console/dist is not touched.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './support/run.ts';

describe('console build on demand (bw_ensure_console)', function () {
  // A Vite build on a loaded 2-core machine.
  this.timeout(180_000);
  let dir: string;
  let dist: string;
  const ensure = () =>
    run('bash', ['-c', 'source scripts/lib/common.sh && bw_ensure_console'], {
      env: { BW_CONSOLE_DIST: dist },
      timeoutMs: 170_000,
    });

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'botwire-console-build-'));
    dist = join(dir, 'dist');
  });

  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the build is missing, then it is built with one line saying so; when fresh, then nothing is done or said; when older than its sources, then it is rebuilt', async () => {
    const first = await ensure();
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr.trim().split('\n')).to.deep.equal([
      `building the console (npm run console:build): ${dist} is missing`,
    ]);
    expect(existsSync(join(dist, 'index.html'))).to.equal(true);

    const again = await ensure();
    expect([again.code, again.stderr]).to.deep.equal([0, '']);

    const past = new Date('2000-01-01T00:00:00Z');
    utimesSync(join(dist, 'index.html'), past, past);
    const stale = await ensure();
    expect(stale.code, stale.stderr).to.equal(0);
    expect(stale.stderr).to.match(
      /^building the console \(npm run console:build\): \S+ is newer than /,
    );
    expect(existsSync(join(dist, 'index.html'))).to.equal(true);
  });
});
