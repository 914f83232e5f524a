#!/usr/bin/env node
// @ts-check
// node scripts/healthcheck.mjs [--live] [health file]
// The health check of the container image and of the Kubernetes probes: reads the health file a
// botwire process keeps fresh (HEALTH_FILE, src/shared/health-file.ts) and, when the file names a
// URL (api: its /healthz), asks it too.
//   default  ready: the file is fresh, its process alive, every check ok and not stopping
//   --live   alive: the file is fresh and its process alive (a Redis outage is not a reason to
//            restart a process: it reconnects by itself)
// The file is argument 1, else $HEALTH_FILE. Plain JavaScript without the TypeScript loader, so a
// probe costs a bare Node start (about a tenth of a second of CPU).
// Exit codes: 0 healthy (one line on stdout); 1 unhealthy (one line on stderr saying why);
// 2 bad usage.
import { readFileSync } from 'node:fs';

const URL_TIMEOUT_MS = 2000;

/** @param {number} code @param {string} message @returns {never} */
function exit(code, message) {
  (code === 0 ? process.stdout : process.stderr).write(`healthcheck: ${message}\n`);
  process.exit(code);
}

/** Whether a process of this pid runs here (EPERM: it does, as another user). @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

const args = process.argv.slice(2);
const live = args.includes('--live');
const rest = args.filter((arg) => arg !== '--live');
if (rest.length > 1 || rest.some((arg) => arg.startsWith('-'))) {
  exit(2, 'usage: node scripts/healthcheck.mjs [--live] [health file]');
}
const path = rest[0] ?? process.env.HEALTH_FILE ?? '';
if (!path) exit(2, 'no health file: pass its path or set HEALTH_FILE');

/** @type {import('../src/shared/health-file.ts').HealthRecord} */
let record;
try {
  record = JSON.parse(readFileSync(path, 'utf8'));
} catch (error) {
  const code = /** @type {NodeJS.ErrnoException} */ (error).code;
  exit(
    1,
    code === 'ENOENT'
      ? `${path} is missing (not started yet, or stopped)`
      : `${path} is unreadable`,
  );
}
const ageMs = Date.now() - record.at;
if (!(ageMs <= record.staleAfterMs)) {
  exit(
    1,
    `${record.component} stopped turning: ${path} was written ${(ageMs / 1000).toFixed(1)} s ago`,
  );
}
if (!alive(record.pid)) exit(1, `${record.component} (pid ${record.pid}) is gone`);
const checks = Object.entries(record.checks)
  .map(([name, result]) => `${name} ${result}`)
  .join(', ');
if (!live && !record.ready) {
  exit(1, `${record.component} is not ready: ${checks || 'stopping'}`);
}
if (record.url) {
  try {
    const response = await fetch(record.url, { signal: AbortSignal.timeout(URL_TIMEOUT_MS) });
    if (response.status !== 200) exit(1, `${record.url} answered ${response.status}`);
  } catch {
    exit(1, `${record.url} did not answer within ${URL_TIMEOUT_MS} ms`);
  }
}
exit(0, `${record.component} (pid ${record.pid}) ${live ? 'alive' : 'ready'}: ${checks}`);
