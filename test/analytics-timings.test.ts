/**
 * Durations kept as log-scale bucket counts (`src/shared/analytics-timings.ts`), bucketed and
 * read in Postgres as the rollups are: the median and p90 read back are within 5 % of the exact
 * ones, per group.
 */
import { expect } from 'chai';
import {
  bucketSql,
  quantilesOf,
  quantilesSql,
  type QuantileRow,
} from '../src/shared/analytics-timings.ts';
import { createTestSchema, type TestSchema } from './support/services.ts';

/** The nearest-rank quantile of `values`. */
function exact(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

describe('analytics timings (log-scale buckets, in Postgres)', function () {
  this.timeout(30_000);
  let t: TestSchema;
  before(async () => {
    t = await createTestSchema();
  });
  after(async () => {
    await t?.drop();
  });

  /** `values` of each group bucketed, counted and read as the rollups are. */
  async function read(groups: Record<string, number[]>): Promise<Map<string, QuantileRow>> {
    const names = Object.entries(groups).flatMap(([g, vs]) => vs.map(() => g));
    const values = Object.values(groups).flat();
    const { rows } = await t.db.raw<{ rows: (QuantileRow & { g: string })[] }>(
      quantilesSql(
        `select g, ${bucketSql('v')} as bucket, count(*) as count
         from unnest(?::text[], ?::float8[]) as x (g, v) group by 1, 2`,
        ['g'],
      ),
      [names, values],
    );
    return new Map(rows.map((r) => [r.g, r]));
  }

  it('when durations from 2 ms to an hour are kept as buckets, then each group’s median and p90 read back are within 5 % of the exact ones', async () => {
    let seed = 7;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    const groups: Record<string, number[]> = {};
    for (const spread of [0.3, 1, 3]) {
      groups[`spread ${spread}`] = Array.from({ length: 2000 }, () =>
        Math.round(Math.exp(Math.log(800) + spread * (random() * 2 - 1) * 2)),
      );
    }
    const rows = await read(groups);
    for (const [group, values] of Object.entries(groups)) {
      const figures = quantilesOf(rows.get(group));
      expect(figures.count, group).to.equal(values.length);
      for (const [q, got] of [
        [0.5, figures.median],
        [0.9, figures.p90],
      ] as const) {
        const want = exact(values, q);
        expect(Math.abs(got! - want) / want, `${group}, q ${q}`).to.be.below(0.05);
      }
    }
  });

  it('when a group has one duration, then it is both its median and p90; a group with none has no figures', async () => {
    const rows = await read({ one: [1234], tiny: [0.2] });
    const one = quantilesOf(rows.get('one'));
    expect(one.count).to.equal(1);
    expect(one.median).to.equal(one.p90);
    expect(Math.abs(one.median! - 1234) / 1234).to.be.below(0.05);
    expect(quantilesOf(rows.get('tiny')).median).to.equal(1);
    expect(quantilesOf(rows.get('none'))).to.deep.equal({ count: 0, median: null, p90: null });
  });
});
