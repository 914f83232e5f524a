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
