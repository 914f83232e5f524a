/**
 * Drop-off on the graph (docs/analytics.md): over the last 7, 30 or 90 days, each state's node
 * shows how many entered it and how many gave up there; a state where a fifth or more gave up
 * stands out. Off by default; `?dropoff=<days>` (the analytics page's link) opens with it on.
 */
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { dayBefore, useAnalytics } from '../../api/analytics.ts';
import { useMay } from '../../api/permissions.ts';

/** What a state's node shows of its analytics. */
export interface StateDropOff {
  entered: number;
  abandoned: number;
  reasks: number;
}

const CHOICES = [7, 30, 90] as const;

export function useDropOff(appId: string) {
  const [search] = useSearchParams();
  const asked = Number(search.get('dropoff'));
  const [days, setDays] = useState<number>(CHOICES.find((d) => d === asked) ?? 0);
  const may = useMay();
  const allowed = may('GET /v2/bots/:app_id/analytics');
  const analytics = useAnalytics(
    appId,
    { from: dayBefore(Math.max(days, 1) - 1), to: dayBefore(0) },
    allowed && days > 0,
  );
  const stats = useMemo(() => {
    if (days === 0 || !analytics.data) return undefined;
    return new Map<string, StateDropOff>(
      analytics.data.states.map((s) => [
        s.state,
        { entered: s.entered, abandoned: s.abandoned, reasks: s.reasks + s.fallbacks },
      ]),
    );
  }, [days, analytics.data]);
  return { allowed, days, setDays, stats, error: analytics.error };
}

export function DropOffSelect({
  days,
  onChange,
}: {
  days: number;
  onChange: (days: number) => void;
}) {
  return (
    <span className="drop-off-select" data-route="GET /v2/bots/:app_id/analytics">
      <label htmlFor="drop-off-days">Drop-off</label>{' '}
      <select id="drop-off-days" value={days} onChange={(e) => onChange(Number(e.target.value))}>
        <option value={0}>off</option>
        {CHOICES.map((d) => (
          <option key={d} value={d}>
            last {d} days
          </option>
        ))}
      </select>
    </span>
  );
}

/** The line a node shows: `12 entered · 3 gave up (25 %)`, and whether that is a fifth or more. */
export function dropOffLine(stats: StateDropOff): { text: string; high: boolean } {
  const share = stats.entered === 0 ? 0 : stats.abandoned / stats.entered;
  const gaveUp =
    stats.abandoned === 0 ? '' : ` · ${stats.abandoned} gave up (${Math.round(share * 100)} %)`;
  const asked = stats.reasks === 0 ? '' : ` · ${stats.reasks} not understood`;
  return { text: `${stats.entered} entered${gaveUp}${asked}`, high: share >= 0.2 };
}
