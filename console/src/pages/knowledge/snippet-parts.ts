/**
 * A search hit's snippet as text pieces, the matched words flagged. The server wraps matches in
 * `<mark>` / `</mark>` (Postgres `ts_headline`) without escaping the document's text, so the
 * snippet is never HTML: it is split here and each piece rendered as text (no innerHTML).
 */

export interface SnippetPart {
  text: string;
  marked: boolean;
}

const MARKERS = /<mark>|<\/mark>/g;

/**
 * Splits `snippet` at its markers. A stray `</mark>` outside a match or a `<mark>` inside one is
 * dropped (the text around it stays); empty pieces are left out; neighbours of the same kind are
 * joined.
 */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let marked = false;
  let from = 0;
  const push = (text: string) => {
    if (text === '') return;
    const last = parts[parts.length - 1];
    if (last && last.marked === marked) last.text += text;
    else parts.push({ text, marked });
  };
  for (const match of snippet.matchAll(MARKERS)) {
    push(snippet.slice(from, match.index));
    marked = match[0] === '<mark>';
    from = match.index + match[0].length;
  }
  push(snippet.slice(from));
  return parts;
}
