/** Redis stream entry ids (`<ms>-<seq>`), as the events stream's SSE ids. */

/** A complete stream id; anything else is refused as a resume point. */
export const STREAM_ID = /^\d{1,20}-\d{1,20}$/;

/** The id before every entry. */
export const ZERO_ID = '0-0';

/** Orders two stream ids: negative when `a` comes first, 0 when equal. */
export function compareIds(a: string, b: string): number {
  const [aMs = '0', aSeq = '0'] = a.split('-');
  const [bMs = '0', bSeq = '0'] = b.split('-');
  const ms = BigInt(aMs) - BigInt(bMs);
  if (ms !== 0n) return ms < 0n ? -1 : 1;
  const seq = BigInt(aSeq) - BigInt(bSeq);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}
