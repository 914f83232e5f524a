/**
 * A stand-in OpenAI-compatible embeddings API on 127.0.0.1 (a third party, so a stand-in is right):
 * it records every call (`POST <url>/embeddings`) and answers as the test says, with `answer` (a
 * vector per text, in reverse order by index) or anything else.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EmbeddingsCall {
  input: string[];
  dimensions?: number;
  authorization?: string;
}

/** A stand-in embeddings API: answers per `reply`, records each call. */
export async function standIn(
  reply: (call: EmbeddingsCall, n: number, res: ServerResponse) => void,
): Promise<{ url: string; calls: EmbeddingsCall[]; close: () => Promise<void> }> {
  const calls: EmbeddingsCall[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { input: string[]; dimensions?: number };
      const call: EmbeddingsCall = {
        input: parsed.input,
        ...(parsed.dimensions ? { dimensions: parsed.dimensions } : {}),
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      };
      calls.push(call);
      reply(call, calls.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A vector of `dims` values that differs per text. */
export const vectorOf = (text: string, dims: number): number[] =>
  Array.from({ length: dims }, (_, i) => Math.sin(text.length + i));

/** Answers a call with a vector per text (`embed`'s, else `vectorOf`'s), listed in reverse. */
export function answer(
  res: ServerResponse,
  input: string[],
  dims: number,
  embed: (text: string) => number[] = (text) => vectorOf(text, dims),
): void {
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({
      data: input.map((text, index) => ({ index, embedding: embed(text) })).reverse(),
    }),
  );
}
