/**
 * What a process that searches knowledge holds (api and retriver): the embedding providers its
 * questions are embedded by, where it finds the nearest chunks (pgvector or its own indexes), what it last saw of each collection,
 * and the deployment's relevance threshold. Made once per process from its settings.
 */
import type { Config } from '../../config.ts';
import type { Knex } from '../db.ts';
import { createEmbedders } from '../embeddings/embedders.ts';
import type { Embedders } from '../embeddings/provider.ts';
import { createNearestChunks, type NearestChunks } from '../embeddings/nearest.ts';
import type { KnowledgeSearchDeps } from './hybrid.ts';
import { CollectionCache } from './search.ts';

export interface KnowledgeSearch extends KnowledgeSearchDeps {
  embedders: Embedders;
  vectors: NearestChunks;
  collections: CollectionCache;
  /** KNOWLEDGE_MIN_SIMILARITY: the threshold of collections that set none. */
  minSimilarity: number;
  /** Stops the embedded model's thread, if it started. */
  close(): Promise<void>;
}

export function createKnowledgeSearch(
  config: Config,
  db: Knex,
  overrides: { fetch?: typeof fetch } = {},
): KnowledgeSearch {
  const embedders = createEmbedders(
    config.embeddings,
    overrides.fetch ? { fetch: overrides.fetch } : {},
  );
  return {
    db,
    embedders,
    vectors: createNearestChunks(db, {
      index: config.knowledge.vectorIndex,
      cacheBytes: config.knowledge.vectorCacheBytes,
    }),
    collections: new CollectionCache(),
    minSimilarity: config.knowledge.minSimilarity,
    close: () => embedders.close(),
  };
}
