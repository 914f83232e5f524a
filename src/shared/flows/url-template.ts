/**
 * An HTTP action's URL template filled in so that a value can only ever be data inside the
 * component it stands in (host, path segment, query, fragment), never change which host or path
 * is called. Every value is percent-encoded as a URI component (`/ ? # @ : & = %` and spaces
 * become `%XX`), and a path segment that a value turns into `.` or `..` (also written `%2e`) is
 * refused: URL parsers resolve those, so `/orders/{{id}}` with `..` would call `/`.
 */
import { lookup, meterOf, stringify } from './template.ts';

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

type Part = 'authority' | 'path' | 'query' | 'fragment';

export type RenderedUrl = { ok: true; url: string } | { ok: false; reason: string };

/**
 * The URL of `template` with its placeholders filled from `vars`.
 * @returns the URL, or a reason when a value would change the path or the result is no URL.
 */
export function renderUrl(template: string, vars: Readonly<Record<string, unknown>>): RenderedUrl {
  const schemeEnd = template.indexOf('://');
  let out = schemeEnd < 0 ? '' : template.slice(0, schemeEnd + 3);
  let part = 'authority' as Part;
  let segment = ''; // the current path segment as rendered so far
  let templated = false; // whether a value went into it
  const badSegment = (): boolean => part === 'path' && templated && DOT_SEGMENT.test(segment);

  const literal = (text: string): boolean => {
    for (const ch of text) {
      if (ch === '#' && part !== 'fragment') {
        if (badSegment()) return false;
        part = 'fragment';
      } else if (ch === '?' && (part === 'authority' || part === 'path')) {
        if (badSegment()) return false;
        part = 'query';
      } else if (ch === '/' && (part === 'authority' || part === 'path')) {
        if (badSegment()) return false;
        part = 'path';
        segment = '';
        templated = false;
        out += ch;
        continue;
      }
      if (part === 'path') segment += ch;
      out += ch;
    }
    return true;
  };

  const rest = schemeEnd < 0 ? template : template.slice(schemeEnd + 3);
  let last = 0;
  for (const match of rest.matchAll(PLACEHOLDER)) {
    const index = match.index ?? 0;
    if (!literal(rest.slice(last, index))) return dotRefusal();
    const value = encodeURIComponent(stringify(lookup(vars, match[1] ?? '')));
    meterOf(vars)?.spend(value.length);
    out += value;
    if (part === 'path') {
      segment += value;
      templated = true;
    }
    last = index + match[0].length;
  }
  if (!literal(rest.slice(last)) || badSegment()) return dotRefusal();
  try {
    return { ok: true, url: new URL(out).href };
  } catch {
    return { ok: false, reason: 'the URL with its values filled in is not a valid URL' };
  }
}

function dotRefusal(): RenderedUrl {
  return { ok: false, reason: 'a value would make a path segment "." or ".."' };
}
