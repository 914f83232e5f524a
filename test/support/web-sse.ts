/** A Server-Sent Events client for the web channel tests: connects, parses events as they arrive, and closes. (test/support/sse.ts is the console events tests' reader.) */
import { request, type IncomingHttpHeaders } from 'node:http';
import { waitFor } from './services.ts';

export interface SseEvent {
  id?: string;
  event?: string;
  data: any;
}

export interface SseClient {
  status: number;
  headers: IncomingHttpHeaders;
  events: SseEvent[];
  /** Comment lines received (heartbeats). */
  comments: string[];
  /** Set when the server ended the stream. */
  ended: boolean;
  /** Waits until at least `count` events arrived; returns them all. */
  waitForEvents(count: number, what?: string): Promise<SseEvent[]>;
  close(): void;
}

/** Opens `url` (GET) with `headers` and resolves once the response headers arrived. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        comments: [],
        ended: false,
        waitForEvents: (count, what = `${count} events`) =>
          waitFor(() => (client.events.length >= count ? client.events : undefined), { what }),
        close: () => req.destroy(),
      };
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = { data: undefined };
          let data: string | undefined;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) client.comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: '))
              data = (data === undefined ? '' : `${data}\n`) + line.slice(6);
          }
          if (data === undefined) continue;
          try {
            event.data = JSON.parse(data);
          } catch {
            event.data = data;
          }
          client.events.push(event);
        }
      });
      res.on('end', () => (client.ended = true));
      res.on('error', () => (client.ended = true));
      resolve(client);
    });
    req.on('error', reject);
    req.end();
  });
}
