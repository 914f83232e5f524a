/** A hit's snippet with the matched words highlighted, every piece rendered as text. */
import { snippetParts } from './snippet-parts.ts';

export function SnippetView({ snippet }: { snippet: string }) {
  return (
    <>
      {snippetParts(snippet).map((part, i) =>
        part.marked ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>,
      )}
    </>
  );
}
