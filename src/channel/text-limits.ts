/** Fitting text into platform limits, counted in Unicode code points (never splitting a pair). */

/** Cuts `text` to at most `max` code points, ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** Cuts `text` to at most `max` UTF-8 bytes without splitting a code point. */
export function truncateBytes(text: string, max: number): string {
  let out = '';
  let bytes = 0;
  for (const point of text) {
    const size = Buffer.byteLength(point, 'utf8');
    if (bytes + size > max) break;
    out += point;
    bytes += size;
  }
  return out;
}

/**
 * Splits long text into parts of at most `max` code points, preferring paragraph, line, then word
 * boundaries, so a long answer arrives as several messages instead of being rejected.
 */
export function split(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = Array.from(text);
  while (rest.length > max) {
    const window = rest.slice(0, max).join('');
    const cut = [
      window.lastIndexOf('\n\n'),
      window.lastIndexOf('\n'),
      window.lastIndexOf(' '),
    ].find((i) => i > max / 2);
    const head = cut === undefined ? rest.slice(0, max) : Array.from(window.slice(0, cut));
    parts.push(head.join('').trimEnd());
    rest = rest.slice(head.length);
    while (rest[0] === ' ' || rest[0] === '\n') rest = rest.slice(1);
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest.join(''));
  return parts;
}
