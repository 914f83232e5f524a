import { expect } from 'chai';
import { assignPartitions } from '../src/shared/bus/partition-assignment.ts';

/** Per partition, its member in `assignment`. */
function holdersOf(partitions: number, assignment: Map<string, number[]>): (string | null)[] {
  const holders: (string | null)[] = new Array<string | null>(partitions).fill(null);
  for (const [member, list] of assignment) for (const p of list) holders[p] = member;
  return holders;
}

/** The assignment `members` settle on from nothing: computed, taken, computed again. */
function settled(partitions: number, members: string[]): Map<string, number[]> {
  const first = assignPartitions(partitions, members, new Array<null>(partitions).fill(null));
  return assignPartitions(partitions, members, holdersOf(partitions, first));
}

const names = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `host-${seed}-${(i * 7919 + seed) % 1000}:${1000 + i}`);

describe('partition assignment', () => {
  it('when members start from nothing, then every partition has one member and the shares differ by one at most', () => {
    for (const partitions of [1, 4, 8, 16, 64]) {
      for (let n = 1; n <= 6; n += 1) {
        const assignment = settled(partitions, names(n, partitions));
        const all = [...assignment.values()].flat().sort((a, b) => a - b);
        expect(all).to.deep.equal([...Array(partitions).keys()]);
        const sizes = [...assignment.values()].map((list) => list.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).to.be.at.most(1);
      }
    }
  });

  it('when the assignment is what the leases hold, then computing it again changes nothing', () => {
    const assignment = settled(8, names(3, 1));
    expect(assignPartitions(8, names(3, 1), holdersOf(8, assignment))).to.deep.equal(assignment);
  });

  it('when a fourth member joins three, then only its share changes hands: at most a third of the partitions, whatever the names', () => {
    for (const partitions of [4, 8, 16, 64]) {
      for (let seed = 0; seed < 50; seed += 1) {
        const [a, b, c, d] = names(4, seed) as [string, string, string, string];
        const before = settled(partitions, [a, b, c]);
        const after = assignPartitions(partitions, [a, b, c, d], holdersOf(partitions, before));
        const was = holdersOf(partitions, before);
        const now = holdersOf(partitions, after);
        const moved = now.filter((m, p) => m !== was[p]);
        expect(
          moved.every((m) => m === d),
          'only to the new member',
        ).to.equal(true);
        expect(moved.length).to.equal(Math.floor(partitions / 4));
        expect(moved.length).to.be.at.most(partitions / 3);
      }
    }
  });

  it('when one of four members leaves, then only its partitions change hands', () => {
    for (let seed = 0; seed < 50; seed += 1) {
      const members = names(4, seed);
      const before = settled(8, members);
      const after = assignPartitions(8, members.slice(0, 3), holdersOf(8, before));
      const was = holdersOf(8, before);
      holdersOf(8, after).forEach((m, p) => {
        if (was[p] !== members[3]) expect(m, `partition ${p}`).to.equal(was[p]);
      });
      const sizes = [...after.values()].map((list) => list.length).sort();
      expect(sizes).to.deep.equal([2, 3, 3]);
    }
  });

  it('when leases are held by members no longer live, then their partitions are assigned as free ones', () => {
    const assignment = assignPartitions(4, ['a', 'b'], ['gone', 'gone', 'a', null]);
    expect([...assignment.values()].flat().sort()).to.deep.equal([0, 1, 2, 3]);
    expect(assignment.get('a')).to.include(2);
  });
});
