/**
 * An embedding provider turns texts into unit vectors of one model. A collection records the
 * model its vectors were made with (`collections.vectors_model`), so a query is always embedded by
 * the model of the vectors it is compared with, and vectors of two models never mix.
 *
 * Two kinds ship: the embedded model (`local`, offline, in a worker thread; see
 * `local-provider.ts`) and any OpenAI-compatible `POST /embeddings` API (`api`; see
 * `api-provider.ts`). docs/knowledge.md, "Meaning", says which languages each serves.
 */

/** What an operator chooses for a collection: the embedded model, the configured API, or none. */
export type EmbeddingChoice = 'local' | 'api' | 'none';

export interface EmbeddingProvider {
  /**
   * The model's id as recorded with vectors: `local:use-lite-en` or `api:<model>` (with
   * `@<dimensions>` when dimensions are asked for), so a change of API model is a change of model.
   */
  readonly model: string;
  /** Texts it embeds in one call to its API or one batch of its thread (a longer list is split). */
  readonly batch: number;
  /** Unit vectors, one per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Stops its thread or connections; idempotent. */
  close(): Promise<void>;
}

/** Finds the provider of a recorded model id (undefined when this process cannot make it). */
export interface Embedders {
  /** The provider of a choice; undefined for `none`, or `api` without `EMBEDDINGS_API_URL`. */
  forChoice(choice: EmbeddingChoice): EmbeddingProvider | undefined;
  /** The provider that makes vectors of model `model`, if this process is configured for it. */
  forModel(model: string): EmbeddingProvider | undefined;
  /** The choice a collection gets when it names none (`EMBEDDINGS_PROVIDER`). */
  readonly defaultChoice: EmbeddingChoice;
  close(): Promise<void>;
}

/** Longest text embedded, in characters; a longer chunk is embedded by its start. */
export const MAX_EMBED_CHARS = 2000;
