/** Where a hit comes from, as people read it (the retriver cites sources the same way). */
import type { HitSource } from '../../api/types.ts';

/** `manual.pdf, page 3` or `prices.xlsx, sheet Bikes, rows 2-9` (`row 4` for one row). */
export function citeSource(source: HitSource): string {
  if ('page' in source) return `${source.file}, page ${source.page}`;
  const [first, last] = source.rows;
  const rows = first === last ? `row ${first}` : `rows ${first}-${last}`;
  return `${source.file}, sheet ${source.sheet}, ${rows}`;
}
