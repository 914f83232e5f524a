/**
 * Paths, file names, commands and codes found whole and in parts. Postgres's parser reads
 * `/etc/resolv.conf` as one `file` token, `resolv.conf` as a `host`, `BW-4471-K` as `bw`, `-4471`
 * and `k`; a query is split into words by Unicode segmentation (`etc`, `resolv.conf`; `bw`,
 * `4471`, `k`). So each such token of a chunk is also indexed by its parts: the path's segments and
 * the letters-and-digits runs, normalised by the collection's configuration like any text. A query
 * for `resolv.conf`, `/etc/resolv.conf` or `4471` then finds the chunk that says "indicated in
 * /etc/resolv.conf" or "part BW-4471-K".
 */

/** Characters that join the parts of an identifier. */
const JOINERS = /[/\\._:@+=-]/u;
const PUNCTUATION_AROUND = /^[("'`“‘[{<]+|[)"'`”’\]}>,;:.!?]+$/gu;
/** Most parts added per chunk: a chunk of code-like text adds at most this many words. */
export const MAX_PARTS = 200;

/**
 * The parts of the identifiers in `text`, as one string of words for `to_tsvector`: for each
 * whitespace-separated token holding a joiner between letters or digits, its path segments and
 * its letter-and-digit runs (at most {@link MAX_PARTS}, each once). Empty when there is none.
 */
export function identifierParts(text: string): string {
  const parts = new Set<string>();
  for (const raw of text.split(/\s+/u)) {
    if (parts.size >= MAX_PARTS) break;
    const token = raw.replace(PUNCTUATION_AROUND, '');
    if (token.length < 3 || token.length > 256 || !JOINERS.test(token)) continue;
    const runs = token.split(/[^\p{L}\p{N}]+/u).filter((run) => run.length > 0);
    if (runs.length < 2 && !/[/\\]/u.test(token)) continue;
    for (const segment of token.split(/[/\\]+/u)) {
      const bare = segment.replace(/^[.~]+/u, '');
      if (bare.length > 0 && bare !== token) parts.add(bare);
    }
    for (const run of runs) parts.add(run);
  }
  return [...parts].slice(0, MAX_PARTS).join(' ');
}
