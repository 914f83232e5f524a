/**
 * Serving the console's build at /console/: caching of hashed assets and of index.html, deep links,
 * the Content-Security-Policy, the redirect, and a clear 503 when the build is missing.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApi, type TestApi } from '../support/api.ts';

describe('console serving', function () {
  this.timeout(60_000);
  let built: TestApi;
  let missing: TestApi;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'botwire-console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title><div id="root">');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1);');
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    built = await startTestApi({}, { consoleDir: dir });
    missing = await startTestApi({}, { consoleDir: join(dir, 'nothing-here') });
  });

  after(async () => {
    await built?.stop();
    await missing?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when a hashed asset is asked for, then it is sent with a year of immutable caching and its type', async () => {
    const response = await fetch(`${built.url}/console/assets/index-abc123.js`);
    expect(response.status).to.equal(200);
    expect(await response.text()).to.equal('console.log(1);');
    expect(response.headers.get('cache-control')).to.equal('max-age=31536000,immutable');
    expect(response.headers.get('content-type')).to.match(/javascript/);
  });

  it('when /console/ or a deep link is opened, then index.html is sent with no-cache and a strict CSP without inline script (inline styles only)', async () => {
    for (const path of ['/console/', '/console/bots/5f0c1e9a-0000-4000-8000-000000000000']) {
      const response = await fetch(`${built.url}${path}`);
      expect(response.status, path).to.equal(200);
      expect(await response.text()).to.include('<div id="root">');
      expect(response.headers.get('content-type')).to.match(/^text\/html/);
      expect(response.headers.get('cache-control')).to.equal('no-cache');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).to.include("script-src 'self'").and.include("frame-ancestors 'none'");
      expect(csp).to.not.include('unsafe-eval');
      // Inline styles only (CodeMirror writes its theme into <style> elements, docs/console.md);
      // never inline script.
      const directives = new Map(
        csp.split(';').map((d) => {
          const [name = '', ...values] = d.trim().split(/\s+/);
          return [name, values.join(' ')];
        }),
      );
      expect(directives.get('script-src')).to.equal("'self'");
      expect(directives.get('default-src')).to.equal("'self'");
      expect(directives.get('style-src')).to.equal("'self' 'unsafe-inline'");
      expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
      // The test edge's PUBLIC_BASE_URL is https.
      expect(response.headers.get('strict-transport-security')).to.match(/^max-age=\d+$/);
    }
  });

  it('when /console is opened without the slash, then it redirects to /console/', async () => {
    const response = await fetch(`${built.url}/console`, { redirect: 'manual' });
    expect(response.status).to.equal(302);
    expect(response.headers.get('location')).to.equal('/console/');
  });

  it('when a missing asset or file, or a path outside the build, is asked for, then 404 BW_ERR_NOT_FOUND and never index.html', async () => {
    for (const path of [
      '/console/assets/gone-000.js',
      '/console/nothing.css',
      '/console/..%2f..%2fpackage.json',
      '/console/assets/..%2f..%2f..%2fpackage.json',
    ]) {
      const response = await fetch(`${built.url}${path}`);
      expect(response.status, path).to.equal(404);
      expect(((await response.json()) as any).error.code, path).to.equal('BW_ERR_NOT_FOUND');
    }
  });

  it('when the console is asked for with POST, then 405 and nothing is served', async () => {
    const response = await fetch(`${built.url}/console/`, { method: 'POST' });
    expect(response.status).to.equal(405);
    expect(((await response.json()) as any).error.code).to.equal('BW_ERR_METHOD_NOT_ALLOWED');
  });

  it('when the build is missing, then /console/ answers 503 with BW_ERR_CONSOLE_NOT_BUILT and the command that builds it', async () => {
    const response = await fetch(`${missing.url}/console/`);
    expect(response.status).to.equal(503);
    const page = await response.text();
    expect(page).to.include('BW_ERR_CONSOLE_NOT_BUILT').and.include('npm run console:build');
    expect(response.headers.get('cache-control')).to.equal('no-store');
  });
});
