/**
 * Searching a collection as a bot's `answer_from` step would: hits with their source, by words,
 * by meaning or both, each with its words score and its similarity by meaning.
 */
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { citeSource } from './cite-source.ts';
import { knowledgeKeys, searchCollection } from './knowledge-api.ts';
import type { SearchHit, SearchMode } from '../../api/types.ts';

const MODES: { value: SearchMode | 'auto'; label: string }[] = [
  { value: 'auto', label: 'As bots search (hybrid when it has vectors)' },
  { value: 'hybrid', label: 'Hybrid: words and meaning' },
  { value: 'semantic', label: 'Meaning only' },
  { value: 'words', label: 'Words only' },
];

/** The scores behind a hit's place: words and meaning, as far as each found it. */
function scores(hit: SearchHit, mode: SearchMode): string {
  const parts = [`rank ${hit.rank}`];
  if (mode !== 'semantic')
    parts.push(
      hit.words_rank === undefined
        ? 'words: not found'
        : `words: #${hit.words_rank}, score ${(hit.words_score ?? 0).toFixed(3)}${hit.words_all ? ', every word' : ''}`,
    );
  if (mode !== 'words')
    parts.push(
      hit.vector_score === undefined
        ? 'meaning: —'
        : `meaning: #${hit.vector_rank}, similarity ${hit.vector_score.toFixed(3)}`,
    );
  return parts.join(' · ');
}
import { SnippetView } from './snippet-view.tsx';

/**
 * Whether a bot would answer from the hit (docs/knowledge.md, "Answers that know their limits"):
 * by meaning, at least `threshold` similar or holding every word; by words, every hit.
 */
const answersFrom = (hit: SearchHit, mode: SearchMode, threshold: number): boolean =>
  mode === 'words' || (hit.vector_score ?? -1) >= threshold || hit.words_all === true;

/** @param threshold - The collection's relevance threshold (its own, else the deployment's). */
export function SearchPanel({ name, threshold }: { name: string; threshold?: number }) {
  const inputId = useId();
  const [text, setText] = useState('');
  const [asked, setAsked] = useState('');
  const [mode, setMode] = useState<SearchMode | 'auto'>('auto');
  const search = useQuery({
    queryKey: knowledgeKeys.search(name, asked, mode),
    queryFn: () => searchCollection(name, asked, mode),
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
        <label htmlFor={`${inputId}-mode`}>Search by</label>{' '}
        <select
          id={`${inputId}-mode`}
          value={mode}
          onChange={(event) => setMode(event.currentTarget.value as SearchMode | 'auto')}
        >
          {MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>{' '}
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
              : `${search.data.hits.length} hits for “${search.data.query}” by ${search.data.mode} (${search.data.language}).`}
          </p>
          <ol className="kn-hits">
            {search.data.hits.map((hit) => (
              <li key={hit.chunk_id}>
                <p className="kn-hit-source">
                  <strong>{citeSource(hit.source)}</strong>{' '}
                  <span className="ops-muted">{scores(hit, search.data.mode)}</span>
                  {threshold !== undefined && !answersFrom(hit, search.data.mode, threshold) && (
                    <span className="ops-muted">
                      {' '}
                      · below the relevance threshold: bots do not answer from it
                    </span>
                  )}
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
