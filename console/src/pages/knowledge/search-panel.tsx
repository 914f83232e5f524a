/** Searching a collection as a bot's `answer_from` step would: hits with their source. */
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { citeSource } from './cite-source.ts';
import { knowledgeKeys, searchCollection } from './knowledge-api.ts';
import { SnippetView } from './snippet-view.tsx';

export function SearchPanel({ name }: { name: string }) {
  const inputId = useId();
  const [text, setText] = useState('');
  const [asked, setAsked] = useState('');
  const search = useQuery({
    queryKey: knowledgeKeys.search(name, asked),
    queryFn: () => searchCollection(name, asked),
    enabled: asked !== '',
  });
  return (
    <section aria-labelledby={`${inputId}-h`}>
      <h2 id={`${inputId}-h`}>Search</h2>
      <form
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setAsked(text.trim());
        }}
      >
        <label htmlFor={inputId}>Search the collection</label>{' '}
        <input
          id={inputId}
          type="search"
          value={text}
          maxLength={2000}
          onChange={(event) => setText(event.currentTarget.value)}
        />{' '}
        <button type="submit" disabled={text.trim() === ''}>
          Search
        </button>
      </form>
      {search.isFetching && <p role="status">Searching…</p>}
      {search.isError && <ErrorAlert what="The search failed." error={search.error} />}
      {search.data && (
        <>
          <p className="ops-muted" role="status">
            {search.data.hits.length === 0
              ? `No hits for “${search.data.query}”.`
              : `${search.data.hits.length} hits for “${search.data.query}” (${search.data.language}).`}
          </p>
          <ol className="kn-hits">
            {search.data.hits.map((hit) => (
              <li key={hit.chunk_id}>
                <p className="kn-hit-source">
                  <strong>{citeSource(hit.source)}</strong>{' '}
                  <span className="ops-muted">score {hit.score.toFixed(3)}</span>
                </p>
                <p className="kn-hit-snippet">
                  <SnippetView snippet={hit.snippet || hit.text} />
                </p>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
