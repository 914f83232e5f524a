/**
 * Document uploads (`multipart/form-data`) streamed to the collection's folder. Each file part is
 * written to a temporary file beside its final name and hashed on the way; only when every part
 * of the request arrived whole are they renamed into place (a rename is atomic), so a refused or
 * broken upload leaves the folder exactly as it was.
 *
 * Names are checked as the client sent them (./upload-names.ts); a name already in the collection
 * is refused unless the request says `?replace=true`. The quotas (per collection and for the whole
 * storage folder, bytes and files) are counted while the bytes stream: the part that passes one
 * stops being written at once, and nothing of the request is kept.
 */
import busboy from 'busboy';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, rmdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'koa';
import type { UploadQuota } from '../../config.ts';
import { BotwireError } from '../../shared/errors.ts';
import {
  collectionDir,
  documentExtension,
  DOCUMENT_EXTENSIONS,
} from '../../shared/knowledge/names.ts';
import { QuotaMeter, storageUsage } from './upload-quota.ts';
import { uploadName } from './upload-names.ts';

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
  const name = uploadName(filename);
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

/** Whether the request asks to replace documents of the same names (`?replace=true`). */
function replaceAsked(ctx: Context): boolean {
  const value = ctx.query.replace;
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new BotwireError('BW_ERR_SCHEMA', 'replace must be true or false', {
    details: { problems: [{ path: '/query/replace', message: 'must be true or false' }] },
  });
}

/**
 * Stores the request's file parts in the collection's folder. A name already there is refused
 * (409 `BW_ERR_FILE_EXISTS`) unless the request says `?replace=true`.
 * @param quota limits on what STORAGE_DIR holds; without one, none.
 * @throws BotwireError 415 when the body is not multipart or a file's type is not read; 413 when a
 *   file is over `maxBytes`, there are too many files or a quota would be passed; 400 for a bad
 *   (`BW_ERR_FILE_NAME`) or repeated file name or no file at all; 409 for a name already stored.
 */
export async function receiveUpload(
  ctx: Context,
  storageDir: string,
  collection: string,
  maxBytes: number,
  quota?: UploadQuota,
): Promise<UploadedFile[]> {
  if (!ctx.is('multipart/form-data')) {
    throw new BotwireError(
      'BW_ERR_UNSUPPORTED_MEDIA_TYPE',
      'the body must be multipart/form-data with one file part per document',
    );
  }
  const replace = replaceAsked(ctx);
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
      // The name as sent: busboy would otherwise keep only what follows the last separator, and
      // "../a.pdf" would quietly become "a.pdf".
      preservePath: true,
    });
  } catch (error) {
    throw new BotwireError('BW_ERR_SCHEMA', 'the multipart body has no valid boundary', {
      cause: error,
    });
  }
  const dir = collectionDir(storageDir, collection);
  const usage = await storageUsage(storageDir, collection);
  const meter = new QuotaMeter(usage, quota);
  const created = await mkdir(dir, { recursive: true });
  parser.on('file', (_field, stream, info) => {
    if (failure) {
      // Already refused: the rest of the body is read and dropped, nothing more is written.
      stream.resume();
      return;
    }
    let part: Part;
    try {
      const name = checkDocumentName(info.filename ?? '');
      if (parts.some((p) => p.name === name)) {
        throw new BotwireError('BW_ERR_SCHEMA', `the file "${name}" appears twice in the upload`);
      }
      if (usage.sizes.has(name) && !replace) {
        throw new BotwireError(
          'BW_ERR_FILE_EXISTS',
          `the collection already holds "${name}"; upload with ?replace=true to replace it`,
          { details: { file: name } },
        );
      }
      meter.startFile(name);
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
    // Counts every byte against the quotas; past one, the rest of the part is dropped unwritten.
    const metered = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (failure) return done();
        const over = meter.add(chunk.length);
        if (over) {
          fail(over);
          return done();
        }
        done(null, chunk);
      },
    });
    writes.push(
      pipeline(stream, metered, createWriteStream(part.temp, { flags: 'wx' })).then(
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
