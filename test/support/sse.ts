/** A Server-Sent Events reader for tests: the events received so far, and waits on them. */
import { once } from 'node:events';
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { waitFor } from './services.ts';

export interface SseEvent {
  id?: string;
  event: string;
  data: any;
}

export interface SseStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The JSON body when the answer is not a stream (an error). */
  json: any;
  events: SseEvent[];
  /** Comment lines received (heartbeats). */
  comments: number;
  /** Resolves when the server ended or closed the response. */
  ended: Promise<void>;
  /** Events of type `event` (all when absent) once `count` of them arrived. */
  waitForEvents(count: number, event?: string, timeoutMs?: number): Promise<SseEvent[]>;
  /** Stops reading from the socket (a client that does not keep up). */
  pause(): void;
  close(): void;
}

function parse(block: string, stream: SseStream): void {
  const event: SseEvent = { event: 'message', data: undefined };
  const data: string[] = [];
  let comment = false;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) comment = true;
    else if (line.startsWith('id: ')) event.id = line.slice(4);
    else if (line.startsWith('event: ')) event.event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length === 0) {
    if (comment) stream.comments += 1;
    return;
  }
  event.data = JSON.parse(data.join('\n'));
  stream.events.push(event);
}

/** Opens `GET <url><path>` and resolves once the answer's headers (and, for errors, body) came. */
export function openSse(
  url: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: { accept: 'text/event-stream', ...headers } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      let ended!: () => void;
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        json: undefined,
        events: [],
        comments: 0,
        ended: new Promise((r) => (ended = r)),
        waitForEvents: (count, event, timeoutMs = 15_000) =>
          waitFor(
            () => {
              const matching = stream.events.filter((e) => !event || e.event === event);
              return matching.length >= count ? matching : undefined;
            },
            { timeoutMs, what: `${count} ${event ?? ''} events` },
          ),
        pause: () => res.pause(),
        close: () => req.destroy(),
      };
      res.on('close', () => ended());
      res.on('error', () => ended());
      if (!String(res.headers['content-type']).startsWith('text/event-stream')) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          stream.json = JSON.parse(body);
          resolve(stream);
        });
        return;
      }
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          parse(buffer.slice(0, at), stream);
          buffer = buffer.slice(at + 2);
        }
      });
      resolve(stream);
    });
    req.end();
  });
}

/**
 * Opens `GET <url><path>` on a raw socket that never reads a byte (an http client buffers what
 * comes in even while paused). Not reading, it cannot see the server close it either.
 */
export async function openStalledSse(
  url: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ close: () => void }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.pause();
  await once(socket, 'connect');
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`GET ${path} HTTP/1.1\r\nhost: ${hostname}\r\n${lines.join('')}\r\n`);
  return { close: () => socket.destroy() };
}
