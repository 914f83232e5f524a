/**
 * JSON POSTs to the platforms over `node:http`/`node:https` with keep-alive agents. The global
 * fetch (undici) costs several times more CPU per call (WHATWG streams, Headers, Response
 * objects): in the pipeline bench it was about a sixth of `channel`'s CPU. Multipart uploads,
 * rare, still go through fetch.
 */
// The modules, not their functions: `request` is read at each call, so whatever wraps it after
// this module loads (an HTTP stand-in in tests, an APM agent) sees the calls. A named import of a
// builtin is a copy taken when it is first imported as ESM.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';

export interface JsonResponse {
  status: number;
  /** The body as text (it may not be JSON: a proxy's error page). */
  text: string;
}

/** POSTs a JSON body; rejects with an Error named like fetch's (`TimeoutError`, ...) on failure. */
export type JsonPost = (
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
) => Promise<JsonResponse>;

/**
 * A `JsonPost` with its own keep-alive agents.
 * @param maxSockets connections kept per platform host. @defaultValue 64
 */
export function createJsonPost(maxSockets = 64): JsonPost & { close(): void } {
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets }),
    https: new https.Agent({ keepAlive: true, maxSockets }),
  };
  const post: JsonPost = (url, body, headers, timeoutMs) =>
    new Promise<JsonResponse>((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const req = (secure ? https.request : http.request)(
        target,
        {
          method: 'POST',
          agent: secure ? agents.https : agents.http,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.once('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          );
          res.once('error', reject);
        },
      );
      req.setTimeout(timeoutMs, () => {
        const error = new Error(`no answer within ${timeoutMs} ms`);
        error.name = 'TimeoutError';
        req.destroy(error);
      });
      req.once('error', reject);
      req.end(body);
    });
  return Object.assign(post, {
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  });
}
