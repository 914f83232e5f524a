/** Figures as the analytics page and the flow graph show them. Pure. */
import type { Analytics } from '../../api/analytics.ts';

export type StateFigures = Analytics['states'][number];

/** `0.1234` as `12.3 %`; no value (nothing to divide by) as a dash. */
export function percent(share: number | null): string {
  if (share === null) return '–';
  return `${(share * 100).toFixed(share > 0 && share < 0.1 ? 1 : 0)} %`;
}

/** Each state with the share of its entries given up there, most given up first. */
export function dropOffRows(
  states: readonly StateFigures[],
): (StateFigures & { abandonedShare: number | null })[] {
  return states
    .map((s) => ({ ...s, abandonedShare: s.entered === 0 ? null : s.abandoned / s.entered }))
    .sort((a, b) => b.abandoned - a.abandoned || a.state.localeCompare(b.state));
}

/** Milliseconds as a person reads a wait: `850 ms`, `2.4 s`, `3.5 min`, `2.1 h`; none as a dash. */
export function duration(ms: number | null): string {
  if (ms === null) return '–';
  if (ms < 1000) return `${ms} ms`;
  const [value, unit] =
    ms < 60_000 ? [ms / 1000, 's'] : ms < 3_600_000 ? [ms / 60_000, 'min'] : [ms / 3_600_000, 'h'];
  return `${value.toFixed(value < 10 ? 1 : 0)} ${unit}`;
}
