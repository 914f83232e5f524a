/**
 * Document uploads (`multipart/form-data`) streamed to the collection's folder. Each file part is
 * written to a temporary file beside its final name and hashed on the way; only when every part
 * of the request arrived whole are they renamed into place (a rename is atomic), so a refused or
 * broken upload leaves the folder exactly as it was.
 */
import busboy from 'busboy';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, rmdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'koa';
import { BotwireError } from '../../shared/errors.ts';
import {
  checkFileName,
  collectionDir,
  documentExtension,
  DOCUMENT_EXTENSIONS,
} from '../../shared/knowledge/names.ts';

/** Most files in one upload request. */
export const MAX_FILES_PER_UPLOAD = 100;

export interface UploadedFile {
  name: string;
  bytes: number;
  sha256: string;
}

const cutShort = (cause: unknown): BotwireError =>
  new BotwireError('BW_ERR_SCHEMA', 'the multipart body is malformed or was cut short', { cause });

interface Part extends UploadedFile {
  temp: string;
}

function checkDocumentName(filename: string): string {
  const name = checkFileName(filename);
  if (name.startsWith('.')) {
    throw new BotwireError('BW_ERR_SCHEMA', 'a document name may not start with "."', {
      details: { file: name },
    });
  }
  if (!documentExtension(name)) {
    const extension = extname(name).toLowerCase();
    throw new BotwireError(
      'BW_ERR_DOCUMENT_UNSUPPORTED',
      `${extension || 'files without an extension'}${extension ? ' files' : ''} are not supported; the indexer reads ${DOCUMENT_EXTENSIONS.join(', ')}`,
      { details: { file: name, extension } },
    );
  }
  return name;
}

/**
 * Stores the request's file parts in the collection's folder, replacing files of the same names.
 * @throws BotwireError 415 when the body is not multipart or a file's type is not read; 413 when a
 *   file is over `maxBytes` or there are too many files; 400 for a bad or repeated file name or
 *   no file at all.
 */
export async function receiveUpload(
  ctx: Context,
  storageDir: string,
  collection: string,
  maxBytes: number,
): Promise<UploadedFile[]> {
  if (!ctx.is('multipart/form-data')) {
    throw new BotwireError(
      'BW_ERR_UNSUPPORTED_MEDIA_TYPE',
      'the body must be multipart/form-data with one file part per document',
    );
  }
  const parts: Part[] = [];
  const writes: Promise<void>[] = [];
  let failure: unknown;
  const fail = (error: unknown): void => {
    failure ??= error;
  };
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: ctx.req.headers,
      limits: { fileSize: maxBytes, files: MAX_FILES_PER_UPLOAD, fields: 20, parts: 200 },
      defParamCharset: 'utf8',
    });
  } catch (error) {
    throw new BotwireError('BW_ERR_SCHEMA', 'the multipart body has no valid boundary', {
      cause: error,
    });
  }
  const dir = collectionDir(storageDir, collection);
  const created = await mkdir(dir, { recursive: true });
  parser.on('file', (_field, stream, info) => {
    let part: Part;
    try {
      const name = checkDocumentName(info.filename ?? '');
      if (parts.some((p) => p.name === name)) {
        throw new BotwireError('BW_ERR_SCHEMA', `the file "${name}" appears twice in the upload`);
      }
      part = {
        name,
        bytes: 0,
        sha256: '',
        temp: join(dir, `.upload-${randomBytes(8).toString('hex')}`),
      };
      parts.push(part);
    } catch (error) {
      fail(error);
      stream.resume();
      return;
    }
    const hash = createHash('sha256');
    stream.on('data', (chunk: Buffer) => {
      part.bytes += chunk.length;
      hash.update(chunk);
    });
    stream.on('limit', () =>
      fail(
        new BotwireError(
          'BW_ERR_DOCUMENT_TOO_LARGE',
          `the file "${part.name}" is larger than ${maxBytes} bytes`,
          { details: { file: part.name, limit: maxBytes } },
        ),
      ),
    );
    writes.push(
      pipeline(stream, createWriteStream(part.temp, { flags: 'wx' })).then(
        () => {
          part.sha256 = hash.digest('hex');
        },
        (error: unknown) =>
          // A file system error (no space, permissions) is ours; anything else is the body's:
          // busboy ends a part's stream with an error when the body stops mid-file.
          fail(
            typeof (error as NodeJS.ErrnoException).code === 'string' &&
              (error as NodeJS.ErrnoException).syscall !== undefined
              ? error
              : cutShort(error),
          ),
      ),
    );
  });
  parser.on('filesLimit', () =>
    fail(
      new BotwireError(
        'BW_ERR_PAYLOAD_TOO_LARGE',
        `at most ${MAX_FILES_PER_UPLOAD} files per upload`,
      ),
    ),
  );
  parser.on('partsLimit', () =>
    fail(new BotwireError('BW_ERR_PAYLOAD_TOO_LARGE', 'too many parts')),
  );
  parser.on('fieldsLimit', () =>
    fail(new BotwireError('BW_ERR_PAYLOAD_TOO_LARGE', 'too many fields')),
  );

  try {
    await pipeline(ctx.req, parser);
  } catch (error) {
    fail(cutShort(error));
  }
  await Promise.all(writes);
  if (!failure && parts.length === 0) {
    fail(
      new BotwireError(
        'BW_ERR_SCHEMA',
        'the upload holds no file part (multipart form field with a filename)',
      ),
    );
  }
  if (failure) {
    await Promise.all(parts.map((p) => rm(p.temp, { force: true })));
    // A folder made for this upload goes too, so a refused upload leaves no trace.
    if (created !== undefined) await rmdir(dir).catch(() => undefined);
    throw failure instanceof BotwireError
      ? failure
      : new BotwireError('BW_ERR_INTERNAL', 'the upload could not be stored', { cause: failure });
  }
  for (const part of parts) await rename(part.temp, join(dir, part.name));
  return parts.map(({ name, bytes, sha256 }) => ({ name, bytes, sha256 }));
}
