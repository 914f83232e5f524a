/**
 * A stand-in for the Telegram Bot API and the WhatsApp Cloud API on 127.0.0.1, for components
 * running as separate processes (nock reaches only its own process). It records every call and
 * answers like the platforms do; `failNext` scripts failures, `behave` scripts a platform having a
 * bad time (rate limits, errors, hanging requests) for as long as the test wants.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface PlatformCall {
  at: number;
  platform: 'telegram' | 'whatsapp';
  /** Telegram method, or `messages` for WhatsApp. */
  method: string;
  body: Record<string, unknown>;
  /** The chat a send goes to: Telegram `chat_id`, WhatsApp `to`. */
  chat: string | undefined;
  /** The text of a text send. */
  text: string | undefined;
  /**
   * Whether the platform accepted it and the caller got that answer (2xx written to a connection
   * still open); a refused or hung call was not delivered.
   */
  delivered: boolean;
  /**
   * The caller gave up (timed out, closed the connection) before the 2xx reached it: a real
   * platform may have delivered it, and the caller sends it again (no idempotency key). Not
   * counted as delivered.
   */
  maybeDelivered?: boolean;
}

export interface ScriptedFailure {
  status: number;
  body: Record<string, unknown>;
}

/** How the stand-in answers one send: normally, with a failure, or never (the request hangs). */
export type StubAnswer = 'ok' | 'hang' | ScriptedFailure;

export interface PlatformStub {
  url: string;
  calls: PlatformCall[];
  /** Answers the next `count` sends (sendMessage, WhatsApp messages) with this failure. */
  failNext(failure: ScriptedFailure, count?: number): void;
  /**
   * Decides the answer to every send from now on (after scripted `failNext` failures), until
   * called with `undefined`. Requests left hanging are never answered; the caller times out.
   */
  behave(answer: ((call: PlatformCall) => StubAnswer) | undefined): void;
  /**
   * The WhatsApp message templates a Business Account lists (`GET /v<n>/<account>/message_templates`,
   * one page), by account id; an account not here lists none.
   */
  templates: Map<string, Record<string, unknown>[]>;
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

function chatOf(body: Record<string, unknown>): string | undefined {
  const chat = body.chat_id ?? body.to;
  return typeof chat === 'string' || typeof chat === 'number' ? String(chat) : undefined;
}

function textOf(body: Record<string, unknown>): string | undefined {
  if (typeof body.text === 'string') return body.text;
  const wa = body.text as { body?: unknown } | undefined;
  return typeof wa?.body === 'string' ? wa.body : undefined;
}

export async function startPlatformStub(): Promise<PlatformStub> {
  const calls: PlatformCall[] = [];
  const failures: ScriptedFailure[] = [];
  const hanging = new Set<ServerResponse>();
  let behaviour: ((call: PlatformCall) => StubAnswer) | undefined;
  let nextId = 1;
  const templates = new Map<string, Record<string, unknown>[]>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = req.url ?? '';
      const listed = /^\/v[\d.]+\/(\d+)\/message_templates(\?|$)/.exec(url);
      if (req.method === 'GET' && listed) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ data: templates.get(listed[1]!) ?? [], paging: {} }));
        return;
      }
      const telegram = /^\/bot[^/]+\/(\w+)$/.exec(url);
      const whatsapp = /^\/v[\d.]+\/\d+\/messages$/.exec(url);
      const method = telegram?.[1] ?? (whatsapp ? 'messages' : 'unknown');
      const call: PlatformCall = {
        at: Date.now(),
        platform: telegram ? 'telegram' : 'whatsapp',
        method,
        body,
        chat: chatOf(body),
        text: textOf(body),
        delivered: false,
      };
      calls.push(call);
      const send = method === 'messages' || method.startsWith('send');
      const answer: StubAnswer =
        (send ? failures.shift() : undefined) ?? (send && behaviour ? behaviour(call) : 'ok');
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      res.setHeader('content-type', 'application/json');
      if (answer !== 'ok') {
        res.statusCode = answer.status;
        res.end(JSON.stringify(answer.body));
        return;
      }
      const id = nextId++;
      // The caller may have given up while the request waited here (a loaded machine): the
      // answer then reaches no one, and the caller counts the call as failed.
      if (res.destroyed || req.socket.destroyed) {
        call.maybeDelivered = true;
        res.destroy();
        return;
      }
      call.delivered = true;
      res.on('close', () => {
        if (res.writableFinished) return;
        call.delivered = false;
        call.maybeDelivered = true;
      });
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
    templates,
    failNext(failure, count = 1) {
      for (let i = 0; i < count; i += 1) failures.push(failure);
    },
    behave(answer) {
      behaviour = answer;
    },
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
