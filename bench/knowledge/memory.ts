/**
 * Peak memory of a process (Linux /proc): its resident set sampled while a phase runs, and the
 * kernel's own high-water mark (VmHWM), reset before each phase so it covers that phase only.
 * Worker threads (the spreadsheet worker) live in the process, so both include them.
 */
import { readFileSync, writeFileSync } from 'node:fs';

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** Resident set size now, in bytes; undefined without /proc. */
export const rssOf = (pid: number): number | undefined => statusField(pid, 'VmRSS');

/** Peak resident set size since start or the last {@link resetPeak}, in bytes. */
export const peakOf = (pid: number): number | undefined => statusField(pid, 'VmHWM');

/** Resets VmHWM to the current RSS (`echo 5 > /proc/<pid>/clear_refs`); false when not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface MemorySample {
  /** RSS when sampling started. */
  start: number | undefined;
  /** Highest sampled RSS. */
  sampled: number | undefined;
  /** VmHWM at the end (valid for the phase only when the reset worked). */
  hwm: number | undefined;
}

/** Samples `pid`'s RSS every `intervalMs` until `stop()`, which returns what was seen. */
export function sampleMemory(pid: number, intervalMs = 50): { stop: () => MemorySample } {
  const reset = resetPeak(pid);
  const start = rssOf(pid);
  let sampled = start;
  const timer = setInterval(() => {
    const rss = rssOf(pid);
    if (rss !== undefined && (sampled === undefined || rss > sampled)) sampled = rss;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const rss = rssOf(pid);
      if (rss !== undefined && (sampled === undefined || rss > sampled)) sampled = rss;
      return { start, sampled, hwm: reset ? peakOf(pid) : undefined };
    },
  };
}
