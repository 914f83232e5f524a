/**
 * Which partitions of a topic each live member should read: an even share each, and as few
 * partitions changing hands on a scale step as the shares allow.
 *
 * With P partitions and n members, each member's share is ⌊P/n⌋ or ⌈P/n⌉ (the larger shares go
 * to the members holding most now, then in name order). A member keeps the partitions it holds up
 * to its share; every other partition (free, held past a share, or held by a member no longer
 * live) goes to the member below its share that ranks highest for it by rendezvous hashing (a
 * hash of member and partition). So a member joining takes its share from the others and nothing
 * else moves (3 → 4 members over 8 partitions: 2 of 8), and a member leaving has only its own
 * partitions spread over the rest. Assigning partition p to the (p mod n)-th member instead moved
 * most partitions on every step.
 *
 * Every process computes the same assignment from the same member list and lease holders; while
 * their views differ for a moment, the leases keep each partition to one reader
 * (`partition-leases.ts`).
 */
import { createHash } from 'node:crypto';

/** Rendezvous weight of `member` for `partition`: higher wins. */
function weight(member: string, partition: number): number {
  return createHash('sha1').update(`${member}\n${partition}`).digest().readUInt32BE(0);
}

/**
 * @param partitions how many partitions the topic has.
 * @param members the live members (any order).
 * @param holders per partition, the member holding its lease now, or null (free or unknown).
 * @returns each live member's partitions, ascending.
 */
export function assignPartitions(
  partitions: number,
  members: readonly string[],
  holders: readonly (string | null)[],
): Map<string, number[]> {
  const live = [...new Set(members)].sort();
  const assigned = new Map<string, number[]>(live.map((m) => [m, []]));
  if (live.length === 0) return assigned;
  const held = new Map<string, number[]>(live.map((m) => [m, []]));
  for (let p = 0; p < partitions; p += 1) {
    const holder = holders[p];
    if (holder != null) held.get(holder)?.push(p);
  }
  const base = Math.floor(partitions / live.length);
  const larger = partitions % live.length;
  const ranked = [...live].sort(
    (a, b) => held.get(b)!.length - held.get(a)!.length || (a < b ? -1 : 1),
  );
  const share = new Map(ranked.map((m, i) => [m, base + (i < larger ? 1 : 0)]));
  const taken = new Set<number>();
  for (const m of live) {
    const keep = held
      .get(m)!
      .sort((a, b) => weight(m, b) - weight(m, a))
      .slice(0, share.get(m));
    for (const p of keep) taken.add(p);
    assigned.set(m, keep);
  }
  for (let p = 0; p < partitions; p += 1) {
    if (taken.has(p)) continue;
    let best: string | undefined;
    for (const m of live) {
      if (assigned.get(m)!.length >= share.get(m)!) continue;
      if (best === undefined || weight(m, p) > weight(best, p)) best = m;
    }
    if (best !== undefined) assigned.get(best)!.push(p);
  }
  for (const list of assigned.values()) list.sort((a, b) => a - b);
  return assigned;
}
