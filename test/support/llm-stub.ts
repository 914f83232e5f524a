/**
 * A stand-in OpenAI-compatible chat completions server on 127.0.0.1 (a third party, so a stand-in
 * is right): it records every request and answers each with what the test queued, or holds it
 * open ("hang") until the test or its own close ends it.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LlmDeps } from '../../src/flow/llm-call.ts';
import { LlmUsage } from '../../src/shared/flows/llm-usage.ts';
import type { Redis } from '../../src/shared/redis.ts';
import { connectRedis, dropPrefix, uniquePrefix } from './services.ts';

export interface LlmRequest {
  headers: Record<string, string | string[] | undefined>;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    max_tokens?: number;
    temperature?: number;
    response_format?: unknown;
  };
}

/** What one request gets: a message (with its token count), an HTTP status, or nothing. */
export type LlmReply = { content: string; tokens?: number } | { status: number } | 'hang';

export interface LlmStub {
  /** Base URL, as LLM_API_URL. */
  url: string;
  requests: LlmRequest[];
  /** Queues replies for the next requests, in order. */
  reply(...replies: LlmReply[]): void;
  /** The reply given when the queue is empty. @defaultValue `{content: 'ok', tokens: 20}` */
  otherwise: LlmReply;
  /** Requests held open now. */
  hanging(): number;
  close(): Promise<void>;
}

export async function startLlmStub(): Promise<LlmStub> {
  const queue: LlmReply[] = [];
  const open = new Set<ServerResponse>();
  const stub: LlmStub = {
    url: '',
    requests: [],
    reply: (...replies) => void queue.push(...replies),
    otherwise: { content: 'ok', tokens: 20 },
    hanging: () => open.size,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      stub.requests.push({ headers: req.headers, body: JSON.parse(raw) as LlmRequest['body'] });
      const reply = queue.shift() ?? stub.otherwise;
      if (reply === 'hang') {
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      }
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"stand-in failure"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${stub.requests.length}`,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: reply.content } }],
          usage: { total_tokens: reply.tokens ?? 20 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}

/** A stand-in LLM and what the flow's llm calls need to reach it (real Redis for the budgets). */
export interface LlmStandIn {
  stub: LlmStub;
  redis: Redis;
  prefix: string;
  deps: LlmDeps;
}

/** Starts the stand-in; the deps name `stand-in-model`, 10,000 tokens a day, 4,000 a turn. */
export async function startLlmStandIn(): Promise<LlmStandIn> {
  const stub = await startLlmStub();
  const redis = connectRedis();
  const prefix = uniquePrefix();
  const deps: LlmDeps = {
    settings: {
      baseUrl: stub.url,
      apiKey: 'llm-key',
      model: 'stand-in-model',
      dailyTokens: 10_000,
      turnTokens: 4000,
    },
    redis,
    prefix,
    usage: new LlmUsage(redis, prefix),
  };
  return { stub, redis, prefix, deps };
}

/** Closes the stand-in and deletes what its calls kept in Redis. */
export async function stopLlmStandIn(standIn: LlmStandIn | undefined): Promise<void> {
  if (!standIn) return;
  await standIn.stub.close();
  await dropPrefix(standIn.redis, standIn.prefix);
  standIn.redis.disconnect();
}
