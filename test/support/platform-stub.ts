/**
 * A stand-in for the Telegram Bot API and the WhatsApp Cloud API on 127.0.0.1, for components
 * running as separate processes (nock reaches only its own process). It records every call and
 * answers like the platforms do; `failNext` scripts failures.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface PlatformCall {
  at: number;
  platform: 'telegram' | 'whatsapp';
  /** Telegram method, or `messages` for WhatsApp. */
  method: string;
  body: Record<string, unknown>;
}

export interface ScriptedFailure {
  status: number;
  body: Record<string, unknown>;
}

export interface PlatformStub {
  url: string;
  calls: PlatformCall[];
  /** Answers the next `count` sends (sendMessage, WhatsApp messages) with this failure. */
  failNext(failure: ScriptedFailure, count?: number): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  if ((req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  return JSON.parse(text) as Record<string, unknown>;
}

export async function startPlatformStub(): Promise<PlatformStub> {
  const calls: PlatformCall[] = [];
  const failures: ScriptedFailure[] = [];
  let nextId = 1;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = req.url ?? '';
      const telegram = /^\/bot[^/]+\/(\w+)$/.exec(url);
      const whatsapp = /^\/v[\d.]+\/\d+\/messages$/.exec(url);
      const method = telegram?.[1] ?? (whatsapp ? 'messages' : 'unknown');
      calls.push({ at: Date.now(), platform: telegram ? 'telegram' : 'whatsapp', method, body });
      const send = method === 'messages' || method.startsWith('send');
      const failure = send ? failures.shift() : undefined;
      res.setHeader('content-type', 'application/json');
      if (failure) {
        res.statusCode = failure.status;
        res.end(JSON.stringify(failure.body));
        return;
      }
      const id = nextId++;
      res.end(
        JSON.stringify(
          telegram
            ? { ok: true, result: method.startsWith('send') ? { message_id: id } : true }
            : { messages: [{ id: `wamid.stub${id}` }] },
        ),
      );
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    failNext(failure, count = 1) {
      for (let i = 0; i < count; i += 1) failures.push(failure);
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
