/** Finding the Postgres server programs where Debian keeps them, off PATH. */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgTool } from './support/pg-tools.ts';

describe('pgTool (test/support/pg-tools.ts)', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'botwire-pg-tools-'));
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const fakeTool = (dir: string, tool: string): string => {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, tool);
    writeFileSync(path, '#!/bin/sh\necho fake\n');
    chmodSync(path, 0o755);
    return path;
  };

  it('when PATH holds only /usr/bin and /bin, then initdb and pg_ctl are still found and run', () => {
    const env = { ...process.env, PATH: '/usr/bin:/bin' };
    for (const tool of ['initdb', 'pg_ctl']) {
      const path = pgTool(tool, env);
      expect(path).to.match(new RegExp(`/${tool}$`));
      expect(path.startsWith('/usr/local/'), path).to.equal(false);
      const version = execFileSync(path, ['--version'], { encoding: 'utf8' });
      expect(version).to.match(/PostgreSQL\)? \d+/);
    }
  });

  it('when several Debian versions are installed and PATH has no pg_config, then the newest version wins', () => {
    fakeTool(join(root, '9.6', 'bin'), 'initdb');
    const newest = fakeTool(join(root, '16', 'bin'), 'initdb');
    fakeTool(join(root, '15', 'bin'), 'initdb');
    expect(pgTool('initdb', { PATH: join(root, 'empty') }, root)).to.equal(newest);
  });

  it('when no version folder has the program, then PATH is searched last', () => {
    mkdirSync(join(root, '16', 'bin'), { recursive: true });
    const onPath = fakeTool(join(root, 'path-bin'), 'pg_ctl');
    expect(pgTool('pg_ctl', { PATH: join(root, 'path-bin') }, root)).to.equal(onPath);
  });

  it('when the program is nowhere, then the error names the folders searched and the package', () => {
    expect(() => pgTool('initdb', { PATH: join(root, 'empty') }, root))
      .to.throw(Error)
      .with.property('message')
      .that.contains('apt-get install postgresql')
      .and.contains(join(root, 'empty'));
  });
});
