/**
 * Upload quotas: what the storage folder holds now (read from disk at the start of each upload),
 * and a meter that counts an upload's files and bytes against the per-collection and total limits
 * as they stream. Replacing a document frees its old size first.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { UploadQuota } from '../../config.ts';
import { BotwireError } from '../../shared/errors.ts';
import { collectionDir } from '../../shared/knowledge/names.ts';

export interface StorageUsage {
  /** Sizes of the documents of the collection being uploaded to, by name (bytes). */
  sizes: Map<string, number>;
  collectionBytes: number;
  collectionFiles: number;
  totalBytes: number;
  totalFiles: number;
}

async function entries(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Documents of one folder (names not starting with ".": temporary files are not counted). */
async function documentSizes(dir: string): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const entry of await entries(dir)) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const info = await stat(join(dir, entry.name)).catch(() => undefined);
    if (info) sizes.set(entry.name, info.size);
  }
  return sizes;
}

/**
 * What STORAGE_DIR holds now: one stat per stored document, so an upload costs time in
 * proportion to the documents stored (about 10 µs each on a local disk).
 */
export async function storageUsage(storageDir: string, collection: string): Promise<StorageUsage> {
  const own = collectionDir(storageDir, collection);
  const usage: StorageUsage = {
    sizes: new Map(),
    collectionBytes: 0,
    collectionFiles: 0,
    totalBytes: 0,
    totalFiles: 0,
  };
  for (const entry of await entries(resolve(storageDir))) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dir = join(resolve(storageDir), entry.name);
    const sizes = await documentSizes(dir);
    let bytes = 0;
    for (const size of sizes.values()) bytes += size;
    usage.totalBytes += bytes;
    usage.totalFiles += sizes.size;
    if (dir === own) {
      usage.sizes = sizes;
      usage.collectionBytes = bytes;
      usage.collectionFiles = sizes.size;
    }
  }
  return usage;
}

function quotaError(which: string, limit: number, unit: 'bytes' | 'files'): BotwireError {
  return new BotwireError(
    'BW_ERR_UPLOAD_QUOTA',
    `the upload would pass the ${which} quota of ${limit} ${unit}; nothing was stored`,
    { details: { quota: which, limit, unit } },
  );
}

/** Counts one upload's files and bytes against a quota; without a quota, nothing is refused. */
export class QuotaMeter {
  readonly #usage: StorageUsage;
  readonly #quota: UploadQuota | undefined;
  #freed = 0;
  #added = 0;
  #newFiles = 0;

  constructor(usage: StorageUsage, quota: UploadQuota | undefined) {
    this.#usage = usage;
    this.#quota = quota;
  }

  /** A file part begins. @throws BotwireError 413 when one more document passes a file quota. */
  startFile(name: string): void {
    const replaced = this.#usage.sizes.get(name);
    if (replaced !== undefined) {
      this.#freed += replaced;
      return;
    }
    this.#newFiles += 1;
    const q = this.#quota;
    if (!q) return;
    if (this.#usage.collectionFiles + this.#newFiles > q.collectionFiles)
      throw quotaError('collection', q.collectionFiles, 'files');
    if (this.#usage.totalFiles + this.#newFiles > q.totalFiles)
      throw quotaError('total', q.totalFiles, 'files');
  }

  /** Counts `bytes` more; returns the error when they pass a byte quota. */
  add(bytes: number): BotwireError | undefined {
    this.#added += bytes;
    const q = this.#quota;
    if (!q) return undefined;
    const delta = this.#added - this.#freed;
    if (this.#usage.collectionBytes + delta > q.collectionBytes)
      return quotaError('collection', q.collectionBytes, 'bytes');
    if (this.#usage.totalBytes + delta > q.totalBytes)
      return quotaError('total', q.totalBytes, 'bytes');
    return undefined;
  }
}
