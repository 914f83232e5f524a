/**
 * A stand-in for the Telegram Bot API on 127.0.0.1, run inside the bench process so that its clock
 * is the load generator's: each `sendMessage` is timed (`performance.now()`, when its body has
 * arrived) and handed to `onSend`. It keeps no list of calls, only counts per method, so that a
 * long run costs no memory here. `setWebhook` bodies (form-encoded, as the edge sends them) are
 * kept by bot token for their `secret_token`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';

/** One `sendMessage` as the stand-in received it. */
export interface SentMessage {
  /** `performance.now()` when the request body had arrived. */
  at: number;
  chatId: string;
  text: string;
}

export interface PlatformStandIn {
  /** The base URL to give as TELEGRAM_API_URL. */
  url: string;
  /** The `secret_token` of the last `setWebhook`, by bot token. */
  webhookSecrets: Map<string, string>;
  /** Calls received, by Bot API method. */
  calls: Map<string, number>;
  /** Called for each `sendMessage`. */
  onSend: (message: SentMessage) => void;
  close(): Promise<void>;
}

function parse(req: IncomingMessage, text: string): Record<string, unknown> {
  if (!text) return {};
  if ((req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  return JSON.parse(text) as Record<string, unknown>;
}

export async function startPlatform(): Promise<PlatformStandIn> {
  let nextId = 1;
  const standIn: PlatformStandIn = {
    url: '',
    webhookSecrets: new Map(),
    calls: new Map(),
    onSend: () => undefined,
    close: () => Promise.resolve(),
  };

  const answer = (res: ServerResponse, status: number, body: unknown): void => {
    const json = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(json),
    });
    res.end(json);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!match) {
        answer(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
        return;
      }
      const [, token, method] = match as unknown as [string, string, string];
      standIn.calls.set(method, (standIn.calls.get(method) ?? 0) + 1);
      let body: Record<string, unknown>;
      try {
        body = parse(req, Buffer.concat(chunks).toString('utf8'));
      } catch {
        answer(res, 400, { ok: false, error_code: 400, description: 'Bad Request: bad JSON' });
        return;
      }
      if (method === 'setWebhook') {
        standIn.webhookSecrets.set(
          token,
          typeof body.secret_token === 'string' ? body.secret_token : '',
        );
      } else if (method === 'sendMessage') {
        standIn.onSend({
          at,
          chatId: String(body.chat_id),
          text: typeof body.text === 'string' ? body.text : '',
        });
      }
      answer(res, 200, {
        ok: true,
        result: method.startsWith('send') ? { message_id: nextId++ } : true,
      });
    });
  });
  // Keep the channel's pooled connections open for the whole run.
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the stand-in got no port');
  standIn.url = `http://127.0.0.1:${address.port}`;
  standIn.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return standIn;
}
