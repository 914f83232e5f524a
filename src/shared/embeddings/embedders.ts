/**
 * The embedding providers one process can use, made from its settings and started lazily: the
 * embedded model's thread starts at its first request, so a process that never embeds holds
 * nothing of it.
 */
import { ApiEmbeddingProvider, type ApiProviderOptions } from './api-provider.ts';
import { LOCAL_MODEL, LocalEmbeddingProvider } from './local-provider.ts';
import type { EmbeddingChoice, Embedders, EmbeddingProvider } from './provider.ts';

export interface EmbeddingSettings {
  /** `EMBEDDINGS_PROVIDER`: the choice of a collection that names none. */
  defaultChoice: EmbeddingChoice;
  /** Empty when no API is configured. */
  apiUrl: string;
  apiKey: string;
  apiModel: string;
  apiDimensions: number;
  apiTimeoutMs: number;
  apiBatch: number;
  /** Texts per batch of the embedded model. */
  localBatch: number;
}

export function createEmbedders(
  settings: EmbeddingSettings,
  overrides: { fetch?: typeof fetch; local?: EmbeddingProvider } = {},
): Embedders {
  let local: EmbeddingProvider | undefined = overrides.local;
  const api: EmbeddingProvider | undefined = settings.apiUrl
    ? new ApiEmbeddingProvider({
        baseUrl: settings.apiUrl,
        apiKey: settings.apiKey,
        model: settings.apiModel,
        dimensions: settings.apiDimensions,
        timeoutMs: settings.apiTimeoutMs,
        batch: settings.apiBatch,
        ...(overrides.fetch ? { fetch: overrides.fetch } : {}),
      } satisfies ApiProviderOptions)
    : undefined;
  const localProvider = (): EmbeddingProvider =>
    (local ??= new LocalEmbeddingProvider({ batch: settings.localBatch }));
  return {
    defaultChoice: settings.defaultChoice,
    forChoice(choice) {
      if (choice === 'local') return localProvider();
      if (choice === 'api') return api;
      return undefined;
    },
    forModel(model) {
      if (model === LOCAL_MODEL) return localProvider();
      return api && api.model === model ? api : undefined;
    },
    async close() {
      await Promise.all([local?.close(), api?.close()]);
    },
  };
}
