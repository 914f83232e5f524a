/**
 * How a collection is searched by meaning: the model of its vectors, its choice of embedding
 * model for the next index (a change re-indexes it at once) and its relevance threshold, below
 * which bots answer "no answer" (docs/knowledge.md, "Meaning").
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ErrorAlert } from '../../components/error-alert.tsx';
import type { CollectionDetail } from '../../api/types.ts';
import { knowledgeKeys, saveSearchSettings } from './knowledge-api.ts';
import { useMay } from '../../api/permissions.ts';

type Choice = 'local' | 'api' | 'none' | 'default';

/** How each model reads to a person; the recorded ids (`local:use-lite-en`) stay in the API. */
const MODEL_NAMES: Record<Exclude<Choice, 'default'>, string> = {
  local: 'the embedded model (offline, English)',
  api: 'the embeddings API',
  none: 'no model (words only)',
};

const modelName = (vectorsModel: string): string =>
  vectorsModel.startsWith('local:')
    ? `${MODEL_NAMES.local} (${vectorsModel})`
    : `the embeddings API's ${vectorsModel.replace(/^api:/, '')}`;

const CHOICES: { value: Choice; label: string }[] = [
  { value: 'default', label: 'The deployment default' },
  { value: 'local', label: 'Embedded model (offline, English)' },
  { value: 'api', label: 'Embeddings API' },
  { value: 'none', label: 'None: words only' },
];

export function SearchSettings({ name, detail }: { name: string; detail: CollectionDetail }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [choice, setChoice] = useState<Choice>(detail.embedding_model ?? 'default');
  const [threshold, setThreshold] = useState(
    detail.min_similarity === null ? '' : String(detail.min_similarity),
  );
  const save = useMutation({
    mutationFn: () =>
      saveSearchSettings(name, {
        embedding_model: choice === 'default' ? null : choice,
        min_similarity: threshold.trim() === '' ? null : Number(threshold),
      }),
    onSuccess: (saved) => {
      setChoice(saved.embedding_model ?? 'default');
      setThreshold(saved.min_similarity === null ? '' : String(saved.min_similarity));
      void queryClient.invalidateQueries({ queryKey: knowledgeKeys.collection(name) });
      void queryClient.invalidateQueries({ queryKey: knowledgeKeys.jobs(name) });
    },
  });
  const thresholdBad =
    threshold.trim() !== '' && !(Number(threshold) >= 0 && Number(threshold) <= 1);
  const vectors = detail.indexed?.vectors_model;
  const may = useMay();
  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Search by meaning</h2>
      <p>
        {detail.indexed === null
          ? 'Not indexed yet.'
          : vectors
            ? `Searched by words and meaning: vectors of ${modelName(vectors)}. Bots answer from passages at least ${detail.min_similarity_effective} similar to the question, or holding all its words.`
            : 'Searched by words only (no vectors): bots answer from passages holding the words of the question.'}{' '}
        The next index embeds with <strong>{MODEL_NAMES[detail.embedding_model_effective]}</strong>.
      </p>
      {may('PATCH /v2/collections/:name') && (
        <form
          data-route="PATCH /v2/collections/:name"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate();
          }}
        >
          <p>
            <label htmlFor={`${id}-model`}>Embedding model</label>{' '}
            <select
              id={`${id}-model`}
              value={choice}
              onChange={(event) => setChoice(event.currentTarget.value as Choice)}
            >
              {CHOICES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>{' '}
            <span className="ops-muted">a change re-indexes the collection</span>
          </p>
          <p>
            <label htmlFor={`${id}-threshold`}>Relevance threshold (0 to 1, empty: default)</label>{' '}
            <input
              id={`${id}-threshold`}
              inputMode="decimal"
              value={threshold}
              aria-invalid={thresholdBad}
              aria-describedby={thresholdBad ? `${id}-threshold-problem` : undefined}
              onChange={(event) => setThreshold(event.currentTarget.value)}
            />
            {thresholdBad && (
              <span id={`${id}-threshold-problem`} className="kn-field-problem">
                {' '}
                A number from 0 to 1.
              </span>
            )}
          </p>
          <button type="submit" disabled={save.isPending || thresholdBad}>
            {save.isPending ? 'Saving…' : 'Save search settings'}
          </button>
        </form>
      )}
      {save.isError && <ErrorAlert what="The settings were refused." error={save.error} />}
      {save.isSuccess && (
        <p role="status">
          Saved.
          {save.data.reindex_job_id &&
            ` Re-indexing with the new model: job ${save.data.reindex_job_id}.`}
        </p>
      )}
    </section>
  );
}
