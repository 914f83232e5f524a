/**
 * Redis stream entry ids (`<ms>-<seq>`): each part an unsigned 64-bit integer, as Redis keeps
 * them. A position a client sends (an SSE `Last-Event-ID`) is checked here before it reaches a
 * Redis command: Redis refuses an id past 64 bits (`ERR Invalid stream ID`), and a read shared
 * by many clients must never carry one.
 */

/** The largest value of either part of an id. */
const MAX_PART = 2n ** 64n - 1n;

const SHAPE = /^(\d{1,20})-(\d{1,20})$/;

/** The id before every entry. */
export const ZERO_ID = '0-0';

/** The greatest id: nothing comes after it. */
export const MAX_ID = `${MAX_PART}-${MAX_PART}`;

/** The two parts of a complete id, or undefined when it is malformed or past 64 bits. */
export function parseStreamId(value: string): [bigint, bigint] | undefined {
  const match = SHAPE.exec(value);
  if (!match) return undefined;
  const ms = BigInt(match[1]!);
  const seq = BigInt(match[2]!);
  return ms <= MAX_PART && seq <= MAX_PART ? [ms, seq] : undefined;
}

/** Whether `value` is a complete stream id Redis accepts. */
export function isStreamId(value: string): boolean {
  return parseStreamId(value) !== undefined;
}

/** Orders two stream ids as Redis does: negative when `a` comes first, 0 when equal. */
export function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map(BigInt);
  const [bm = 0n, bs = 0n] = b.split('-').map(BigInt);
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}
