/**
 * Durations kept as log-scale bucket counts (`src/shared/analytics-timings.ts`): the median and
 * p90 read from the buckets are within 5 % of the exact ones, and the SQL bucket is the same as
 * the one the reads assume.
 */
import { expect } from 'chai';
import { bucketOf, bucketSql, quantiles } from '../src/shared/analytics-timings.ts';
import { createTestSchema, type TestSchema } from './support/services.ts';

/** The nearest-rank quantile of `values`. */
function exact(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

function countsOf(values: number[]): { bucket: number; count: number }[] {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(bucketOf(v), (counts.get(bucketOf(v)) ?? 0) + 1);
  return [...counts].map(([bucket, count]) => ({ bucket, count }));
}

describe('analytics timings (log-scale buckets)', () => {
  it('when durations from 2 ms to an hour are kept as buckets, then the median and p90 read back are within 5 % of the exact ones', () => {
    let seed = 7;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (const spread of [0.3, 1, 3]) {
      const values = Array.from({ length: 2000 }, () =>
        Math.round(Math.exp(Math.log(800) + spread * (random() * 2 - 1) * 2)),
      );
      const read = quantiles(countsOf(values));
      expect(read.count).to.equal(values.length);
      for (const [q, got] of [
        [0.5, read.median],
        [0.9, read.p90],
      ] as const) {
        const want = exact(values, q);
        expect(Math.abs(got! - want) / want, `q ${q}, spread ${spread}`).to.be.below(0.05);
      }
    }
  });

  it('when nothing was counted, then the quantiles are null; one duration is both', () => {
    expect(quantiles([])).to.deep.equal({ count: 0, median: null, p90: null });
    const one = quantiles(countsOf([1234]));
    expect(one.median).to.equal(one.p90);
    expect(Math.abs(one.median! - 1234) / 1234).to.be.below(0.05);
  });

  describe('in Postgres', function () {
    this.timeout(30_000);
    let t: TestSchema;
    before(async () => {
      t = await createTestSchema();
    });
    after(async () => {
      await t?.drop();
    });

    it('when Postgres puts a duration in a bucket, then it is the bucket the reads assume', async () => {
      const values = [0, 0.4, 1, 1.09, 1.1, 2, 999, 1000, 1001, 65_432.1, 3_600_000, 86_400_000];
      const { rows } = await t.db.raw<{ rows: { bucket: number }[] }>(
        `select ${bucketSql('v')} as bucket from unnest(?::float8[]) as v`,
        [values],
      );
      expect(rows.map((r) => r.bucket)).to.deep.equal(values.map(bucketOf));
    });
  });
});
