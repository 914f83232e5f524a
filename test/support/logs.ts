/** A logger for tests that keeps what it writes. */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/shared/logger.ts';

/**
 * A process's root logger (`createLogger`, redaction included) whose lines are kept in `lines`,
 * one JSON text per line, as the process would print them.
 */
export function capturingLogger(options: { component: string; level?: string }): {
  logger: Logger;
  lines: string[];
} {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ ...options, destination }), lines };
}
