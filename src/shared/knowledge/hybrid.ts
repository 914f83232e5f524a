/**
 * Knowledge search by words, by meaning or both (docs/knowledge.md, "Meaning"): the entry point of
 * the retriver and of `GET /v2/collections/<name>/search`. Hybrid runs both searches on the same
 * generation at once (`searchCollection` with `nearest`: Postgres weighs the words while the
 * question is embedded and its neighbours found) and fuses their rankings by
 * reciprocal rank fusion: a chunk scores the sum of 1 / (60 + its rank) over the lists that hold
 * it, so a chunk both lists rank well beats one either list ranks first alone, and neither list's
 * scores need to be comparable.
 */
import { withDeadline } from '../deadline.ts';
import { BotwireError } from '../errors.ts';
import { failureCause } from '../failure-cause.ts';
import type { Knex } from '../db.ts';
import type { Embedders } from '../embeddings/provider.ts';
import type { NearestChunks } from '../embeddings/nearest.ts';
import {
  addSnippets,
  collectionOf,
  CollectionCache,
  searchCollection,
  type Nearest,
  type SearchHit,
  type SearchResult,
} from './search.ts';

export type SearchMode = 'words' | 'semantic' | 'hybrid';
export const SEARCH_MODES: readonly SearchMode[] = ['words', 'semantic', 'hybrid'];

/** Reciprocal rank fusion's constant (the value its authors and most systems use). */
export const RRF_K = 60;
/**
 * Weight of a words hit that holds every word of the question: such a hit is strong evidence
 * (an exact term, a keyword), where the embedded model's neighbours are weak
 * (bench/knowledge/RESULTS.md, the quality bench).
 */
export const WHOLE_WORDS_WEIGHT = 2;
/** Hits each list contributes to the fusion, at least. */
export const FUSION_DEPTH = 20;
/**
 * Matching chunks the words side ranks per group in a hybrid search (a words search ranks
 * `RANKED_CANDIDATES`, 1,000): ranking is the cost of broad words, and in a hybrid search such
 * a query's meaning is the vectors' to find (docs/knowledge.md, "Hybrid search and the fusion").
 */
export const HYBRID_CANDIDATES = 300;

export interface KnowledgeSearchDeps {
  db: Knex;
  /** Without them (or without the collection's model) a collection is searched by words. */
  embedders?: Embedders;
  vectors?: NearestChunks;
  collections?: CollectionCache;
  /**
   * Longest the question's embedding may take (milliseconds). Past it, or when the provider fails,
   * a search that named no mode answers by words (`fallback` says why); one that asked for
   * `semantic` or `hybrid` fails. @defaultValue {@link QUERY_EMBED_TIMEOUT_MS}
   */
  queryTimeoutMs?: number;
}

/** How long a question's embedding may take by default (milliseconds). */
export const QUERY_EMBED_TIMEOUT_MS = 3000;

export interface KnowledgeResult {
  collection: string;
  /** The collection's id, as searched. */
  collection_id: string;
  language: string;
  /** The mode that ran. */
  mode: SearchMode;
  /** The model of the collection's vectors; null when it has none. */
  vectors_model: string | null;
  /** The collection's own relevance threshold; null: the deployment's. */
  min_similarity: number | null;
  hits: SearchHit[];
  /** Why a search by meaning fell back to words (the question could not be embedded in time). */
  fallback?: string;
}

/**
 * The hits good enough to answer from: with vectors, those at least `threshold` similar by
 * meaning or holding every word of the question; without, every hit (words found them all).
 */
export function relevantHits(result: KnowledgeResult, threshold: number): SearchHit[] {
  if (result.mode === 'words') return result.hits;
  return result.hits.filter(
    (hit) => (hit.vector_score ?? -1) >= threshold || hit.words_all === true,
  );
}

/** The best similarity by meaning among the hits; null when none was scored so. */
export function bestSimilarity(hits: readonly SearchHit[]): number | null {
  const scores = hits.flatMap((hit) => (hit.vector_score === undefined ? [] : [hit.vector_score]));
  return scores.length === 0 ? null : Math.max(...scores);
}

function modeRefused(message: string, collection: string): BotwireError {
  return new BotwireError('BW_ERR_SEARCH_MODE', message, { details: { collection } });
}

/** Fuses the two rankings; ties go to the better words rank, then the lower chunk id. */
function fuse(words: readonly SearchHit[], vectors: readonly SearchHit[], k: number): SearchHit[] {
  const fused = new Map<string, SearchHit & { fused: number }>();
  for (const hit of words)
    fused.set(hit.chunk_id, {
      ...hit,
      fused: (hit.words_all ? WHOLE_WORDS_WEIGHT : 1) / (RRF_K + hit.words_rank!),
    });
  for (const hit of vectors) {
    const found = fused.get(hit.chunk_id);
    const part = 1 / (RRF_K + hit.vector_rank!);
    if (found) {
      found.fused += part;
      found.vector_score = hit.vector_score!;
      found.vector_rank = hit.vector_rank!;
    } else fused.set(hit.chunk_id, { ...hit, fused: part });
  }
  return [...fused.values()]
    .sort(
      (a, b) =>
        b.fused - a.fused ||
        (a.words_rank ?? Infinity) - (b.words_rank ?? Infinity) ||
        Number(a.chunk_id) - Number(b.chunk_id),
    )
    .slice(0, k)
    .map(({ fused: score, ...hit }, i) => ({
      ...hit,
      score: Math.round(score * 1e6) / 1e6,
      rank: i + 1,
    }));
}

/**
 * Searches `collection` for `query` in `mode` (default: `hybrid` when the collection has vectors
 * this process can make queries for, else `words`).
 * @throws BotwireError `BW_ERR_SEARCH_MODE` when `semantic` or `hybrid` is asked of a collection
 *   without vectors, or of a model this process is not configured for; as `searchCollection`.
 */
export async function searchKnowledge(
  deps: KnowledgeSearchDeps,
  collection: string,
  query: string,
  k: number,
  mode?: SearchMode,
): Promise<KnowledgeResult> {
  const withCache = { ...deps, collections: deps.collections ?? new CollectionCache() };
  // The default mode is chosen from the collection as last seen; when the search found it
  // re-indexed with another model since, it runs again, once, choosing from what it found.
  return (
    (await searchOnce(withCache, collection, query, k, mode, false)) ??
    (await searchOnce(withCache, collection, query, k, mode, true))!
  );
}

/**
 * One search; undefined when the mode was the default and the collection's model turned out to
 * be another than the one it was chosen from (and `final` is false).
 */
async function searchOnce(
  deps: KnowledgeSearchDeps & { collections: CollectionCache },
  collection: string,
  query: string,
  k: number,
  mode: SearchMode | undefined,
  final: boolean,
): Promise<KnowledgeResult | undefined> {
  const { db, embedders, vectors, collections: cache } = deps;
  // The collection as last seen decides the mode; the search checks it in its own snapshot.
  const seen = await collectionOf(db, collection, cache);
  if (!seen)
    throw new BotwireError('BW_ERR_NOT_FOUND', `no collection named "${collection}"`, {
      details: { collection },
    });
  const model = seen.vectors_model;
  const provider = model ? embedders?.forModel(model) : undefined;
  const usable = provider !== undefined && vectors !== undefined;
  const ran: SearchMode = mode ?? (usable ? 'hybrid' : 'words');
  if (ran !== 'words' && !usable) {
    throw modeRefused(
      model
        ? `the collection's vectors are of ${model}, which this process is not configured for; search it with mode=words`
        : 'the collection has no vectors (indexed with embedding model none, or before it had one); search it with mode=words, or re-index it with an embedding model',
      collection,
    );
  }
  const result = (at: SearchResult, hits: SearchHit[], fallback?: string): KnowledgeResult => ({
    collection,
    collection_id: at.searched.collection_id,
    language: at.language,
    mode: fallback === undefined ? ran : 'words',
    ...(fallback === undefined ? {} : { fallback }),
    vectors_model: at.searched.vectors_model,
    min_similarity: at.searched.min_similarity,
    hits,
  });
  const stale = (found: SearchResult): boolean =>
    !final && mode === undefined && found.searched.vectors_model !== model;
  if (ran === 'words') {
    const found = await searchCollection(db, collection, query, k, { cache });
    if (stale(found)) return undefined;
    return result(
      found,
      found.hits.map((hit, i) => ({ ...hit, rank: i + 1 })),
    );
  }
  const depth = ran === 'hybrid' ? Math.max(k, FUSION_DEPTH) : k;
  // Embedded while the words are weighed (src/shared/knowledge/terms.ts): neither waits for the
  // other. Awaited in `nearest`; the catch only keeps it from being reported unhandled when no
  // attempt gets that far.
  const timeoutMs = deps.queryTimeoutMs ?? QUERY_EMBED_TIMEOUT_MS;
  // The signal also stops the provider's own retries once the deadline is past.
  const embedding = withDeadline(
    provider!.embed([query], AbortSignal.timeout(timeoutMs)),
    timeoutMs,
    'embedding the question',
  ).catch((error: unknown) => {
    throw error instanceof BotwireError
      ? error
      : new BotwireError(
          'BW_ERR_UPSTREAM',
          `embedding the question failed (${failureCause(error)})`,
          {
            cause: error,
          },
        );
  });
  embedding.catch(() => undefined);
  let fallback: string | undefined;
  const nearest: Nearest = async (searched) => {
    // Re-indexed with another model since: searched by words alone this once.
    if (searched.vectors_model !== model || model === null || searched.generation === null)
      return [];
    let queryVector: Float32Array;
    try {
      queryVector = (await embedding)[0]!;
    } catch (error) {
      // The mode was the default: the words answer alone, rather than no answer at all.
      if (mode !== undefined || ran !== 'hybrid') throw error;
      fallback = (error as Error).message;
      return [];
    }
    return vectors!.nearest(
      { collectionId: searched.collection_id, generation: searched.generation, model },
      queryVector,
      depth,
    );
  };
  const found = await searchCollection(db, collection, query, depth, {
    cache,
    nearest,
    candidates: HYBRID_CANDIDATES,
    words: ran === 'hybrid',
    // Snippets for the k hits kept only, not for every row of both lists.
    snippets: false,
  });
  if (stale(found)) return undefined;
  const kept =
    fallback !== undefined
      ? found.hits.slice(0, k).map((hit, i) => ({ ...hit, rank: i + 1 }))
      : ran === 'semantic'
        ? found.vectorHits.slice(0, k).map((hit, i) => ({ ...hit, rank: i + 1 }))
        : fuse(found.hits, found.vectorHits, k);
  return result(found, await addSnippets(db, found.searched, query, kept), fallback);
}
