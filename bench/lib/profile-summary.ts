/**
 * Where a process's CPU went, from the `.cpuprofile` files `BENCH_PROF` makes: self time summed by
 * where the code comes from (a package under node_modules, a file of ours, Node's own, the garbage
 * collector, idle) and the functions that took most, as a share of the busy time.
 *
 *   node --import tsx bench/lib/profile-summary.ts /tmp/prof/*.cpuprofile [--top 25]
 *
 * Each file is reported on its own; its name (`CPU.<date>.<time>.<pid>.<thread>.<seq>`) gives the
 * process by pid only.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

/** What a frame's code is: a package, one of our files, Node's own, or the profiler's categories. */
function originOf(url: string, functionName: string): string {
  if (!url) return `(${functionName || 'native'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url;
  const ours = /\/(src|bench|test)\/(.+)$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]}` : url;
}

function summarize(file: string, top: number): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Self time per node: the sum of the time deltas of the samples that landed on it.
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i += 1) {
    self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0));
  }
  const byOrigin = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    busy += us;
    const origin = originOf(url, functionName);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + us);
    const fn = `${functionName || '(anonymous)'} ${origin}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const wall = profile.endTime - profile.startTime;
  const rows = (map: Map<string, number>): string[] =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => `  ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${name}`);
  console.log(
    `\n${basename(file)}: busy ${(busy / 1e6).toFixed(2)} s of ${(wall / 1e6).toFixed(1)} s (idle and "(program)" left out)`,
  );
  console.log('by origin');
  console.log(rows(byOrigin).join('\n'));
  console.log('by function (self time)');
  console.log(rows(byFunction).join('\n'));
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 25;
for (const file of args) summarize(file, top);
