/**
 * Collection and document names, and where a collection's documents live on disk. The api writes
 * uploads there and the indexer reads them, so both derive paths from here.
 */
import { extname, join, resolve } from 'node:path';
import { BotwireError } from '../errors.ts';

/** The pattern of a collection name (also in schemas/topics/indexer.json and retriver.json). */
export const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** Most bytes of a document's file name (UTF-8), the common file system limit. */
export const MAX_FILE_NAME_BYTES = 255;

export function checkCollectionName(name: string): string {
  if (!COLLECTION_NAME.test(name)) {
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      'a collection name is 1 to 128 letters, digits, "_", "." or "-", starting with a letter or digit',
      { details: { collection: name.slice(0, 140) } },
    );
  }
  return name;
}

/**
 * A document's file name must be one path segment: no `/`, `\`, NUL or control characters, not
 * `.` or `..`, at most 255 bytes. Returns it unchanged.
 */
export function checkFileName(name: string): string {
  const bad =
    name.length === 0 ||
    name === '.' ||
    name === '..' ||
    /[/\\\u0000-\u001f\u007f]/.test(name) ||
    Buffer.byteLength(name) > MAX_FILE_NAME_BYTES;
  if (bad) {
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      'a file name is one path segment (no "/", "\\" or control characters, not "." or ".."), at most 255 bytes',
      { details: { file: name.slice(0, 300) } },
    );
  }
  return name;
}

/** The extensions the indexer reads (lower-case); uploads of other types are refused. */
export const DOCUMENT_EXTENSIONS = ['.pdf', '.xlsx', '.xls', '.ods', '.csv'] as const;

export type DocumentExtension = (typeof DOCUMENT_EXTENSIONS)[number];

/** The lower-cased extension of `name` when the indexer reads it, else undefined. */
export function documentExtension(name: string): DocumentExtension | undefined {
  const extension = extname(name).toLowerCase();
  return (DOCUMENT_EXTENSIONS as readonly string[]).includes(extension)
    ? (extension as DocumentExtension)
    : undefined;
}

/** The folder holding a collection's documents. */
export function collectionDir(storageDir: string, collection: string): string {
  return join(resolve(storageDir), checkCollectionName(collection));
}

/** The path of one document of a collection. */
export function documentPath(storageDir: string, collection: string, file: string): string {
  return join(collectionDir(storageDir, collection), checkFileName(file));
}
