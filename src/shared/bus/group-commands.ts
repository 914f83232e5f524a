/**
 * A consumer group's commands beyond the read itself: creating the groups, and the pending entries
 * list (PEL) a reader takes over, sweeps, reads delivery counts from and reads deferred entries
 * back from. The stream consumer (`consumer.ts`) and its lease rounds (`owned-partitions.ts`)
 * decide when each is due; these only speak to Redis.
 */
import type { Logger } from '../logger.ts';
import type { Redis } from '../redis.ts';
import { parseEntries, type Entry } from './entries.ts';

/** A partition's stream and the group member that reads it. */
export interface GroupMember {
  stream: string;
  group: string;
  /** The consumer's name within the group. */
  name: string;
}

/**
 * Creates the partition streams and the consumer group on each when missing (reading from the
 * start). One command per stream, sent together: the partitions lie in different slots (on a
 * cluster, on different masters), which one pipeline cannot span; the client still writes them
 * back to back, so on one server it costs one round trip like a pipeline.
 */
export async function ensureGroups(
  redis: Redis,
  streams: readonly string[],
  group: string,
): Promise<void> {
  await Promise.all(
    streams.map((stream) =>
      redis.xgroup('CREATE', stream, group, '0', 'MKSTREAM').catch((error: unknown) => {
        if (!(error instanceof Error && error.message.startsWith('BUSYGROUP'))) throw error;
      }),
    ),
  );
}

/** Moves every pending entry of a stream (left by its previous reader) to this member. */
export async function claimAll(redis: Redis, member: GroupMember, logger: Logger): Promise<void> {
  const { stream, group, name } = member;
  let cursor = '0-0';
  do {
    const [next, , deleted] = (await redis.call(
      'XAUTOCLAIM',
      stream,
      group,
      name,
      0,
      cursor,
      'COUNT',
      1000,
      'JUSTID',
    )) as [string, unknown, string[] | undefined];
    if (deleted && deleted.length > 0) {
      // Trimmed by MAXLEN before anyone acknowledged them: nothing left to deliver.
      logger.error({ stream, ids: deleted }, 'pending entries were trimmed before being handled');
    }
    cursor = next;
  } while (cursor !== '0-0');
}

/**
 * Takes the entries of a stream pending with other members for longer than `idleMs`, and finds
 * those pending with this one as long that `orphaned` says it is not handling. Either must be
 * read again. `orphaned` is asked once the pending list is in, so it judges the state of then.
 * @returns whether any were found.
 */
export async function sweepStrays(
  redis: Redis,
  member: GroupMember,
  idleMs: number,
  orphaned: (id: string) => boolean,
  logger: Logger,
): Promise<boolean> {
  const { stream, group, name } = member;
  const rows = (await redis.call('XPENDING', stream, group, 'IDLE', idleMs, '-', '+', 100)) as [
    string,
    string,
  ][];
  const strays = rows.filter(([, owner]) => owner !== name).map(([id]) => id);
  const orphans = rows.filter(([id, owner]) => owner === name && orphaned(id));
  if (orphans.length > 0) {
    logger.warn(
      { stream, count: orphans.length },
      'entries pending with this consumer and not being handled; reading them again',
    );
  }
  if (strays.length === 0) return orphans.length > 0;
  try {
    await redis.call('XCLAIM', stream, group, name, idleMs, ...strays, 'JUSTID');
  } catch (error) {
    // It may have been carried out with its answer lost or late (timed out): the entries
    // would then be pending with this consumer unread. Read its pending entries again.
    logger.warn({ err: error, stream }, 'taking over stray entries failed');
    return true;
  }
  logger.warn({ stream, count: strays.length }, 'took over entries a former reader left pending');
  return true;
}

/** Delivery counts of entries pending for this member; absent when no longer pending. */
export async function pendingDeliveries(
  redis: Redis,
  member: GroupMember,
  entries: readonly { id: string }[],
): Promise<Map<string, number>> {
  const { stream, group, name } = member;
  const pipeline = redis.pipeline();
  for (const { id } of entries) pipeline.call('XPENDING', stream, group, id, id, 1, name);
  const counts = new Map<string, number>();
  for (const [error, reply] of (await pipeline.exec()) ?? []) {
    if (error) throw error;
    const row = (reply as [string, string, number, number][])[0];
    if (row) counts.set(String(row[0]), Number(row[3]));
  }
  return counts;
}

/**
 * Reads pending entries again by id (XRANGE, which leaves their delivery counts alone), with their
 * delivery counts. An entry trimmed away comes back without data; one no longer pending for this
 * member, without a count.
 */
export async function rereadPending(
  redis: Redis,
  member: GroupMember,
  ids: readonly string[],
): Promise<Map<string, { entry: Entry; deliveries: number | undefined }>> {
  const counts = await pendingDeliveries(
    redis,
    member,
    ids.map((id) => ({ id })),
  );
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.xrange(member.stream, id, id);
  const found = new Map<string, { entry: Entry; deliveries: number | undefined }>();
  for (const [i, [error, rows]] of ((await pipeline.exec()) ?? []).entries()) {
    if (error) throw error;
    const id = ids[i]!;
    const [entry] = parseEntries(rows);
    found.set(id, { entry: entry ?? { id, data: null }, deliveries: counts.get(id) });
  }
  return found;
}
