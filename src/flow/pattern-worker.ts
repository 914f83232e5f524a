/**
 * The inside of the pattern thread started by `pattern-matcher.ts`: answers `{id, pattern, text}`
 * with `{id, accepted}`, one at a time; says `{ready: true}` once it can.
 */
import { isMainThread, parentPort } from 'node:worker_threads';
import { CompiledPatterns } from '../shared/flows/pattern.ts';

if (!isMainThread && parentPort) {
  const port = parentPort;
  const patterns = new CompiledPatterns();
  port.on('message', (job: { id: number; pattern: string; text: string }) => {
    port.postMessage({ id: job.id, accepted: patterns.accepts(job.pattern, job.text) });
  });
  // The deadline of a match counts from here: starting the thread (tsx, re2js) is not the match's.
  port.postMessage({ ready: true });
}
