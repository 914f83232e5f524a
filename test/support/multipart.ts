/**
 * Multipart uploads written by hand, so that a file name reaches the edge exactly as given and a
 * body can end before its closing boundary.
 */
import { request } from 'node:http';
import type { TestApi } from './api.ts';

/** One file of a multipart body. */
export interface FilePart {
  filename: string;
  content: Buffer | string;
}

/**
 * The boundary line and headers that open a part of the form field `file` named `filename`; a
 * name with a control character, which cannot stand in a header as it is, goes RFC 5987 encoded.
 */
export function partHead(
  boundary: string,
  filename: string,
  contentType = 'application/octet-stream',
): string {
  const name = /[\u0000-\u001f\u007f]/.test(filename)
    ? `filename*=UTF-8''${encodeURIComponent(filename)}`
    : `filename="${filename}"`;
  return `--${boundary}\r\nContent-Disposition: form-data; name="file"; ${name}\r\nContent-Type: ${contentType}\r\n\r\n`;
}

/** A whole multipart body of `parts`, closing boundary included. */
export function multipartBody(boundary: string, parts: FilePart[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(partHead(boundary, part.filename)), Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/**
 * POSTs a multipart body with `boundary` to `path` on the edge, with the admin key. A Buffer is
 * sent whole with its Content-Length; a list is written piece by piece, chunked, so it may stop
 * anywhere. Resolves with the status and the parsed JSON answer.
 */
export function postMultipart(
  api: TestApi,
  path: string,
  boundary: string,
  body: Buffer | (string | Buffer)[],
): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(api.url);
    const headers: Record<string, string | number> = {
      authorization: `Bearer ${api.adminKey}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    };
    if (Buffer.isBuffer(body)) headers['content-length'] = body.length;
    const req = request(
      { host: url.hostname, port: url.port, method: 'POST', path, headers },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as unknown });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    req.on('error', reject);
    for (const piece of Buffer.isBuffer(body) ? [body] : body) req.write(piece);
    req.end();
  });
}
