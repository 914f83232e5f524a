/** The flow's http action against a local server: the response body is read up to its cap only. */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_BODY_BYTES, runHttpEffect } from '../src/flow/http-effect.ts';

describe('flow http effect', () => {
  let server: Server;
  let url: string;
  let written = 0;
  let closed: Promise<void>;

  before(async () => {
    server = createServer((req, res) => {
      written = 0;
      let open = true;
      closed = new Promise((resolve) => res.on('close', () => ((open = false), resolve())));
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // 64 MiB, written only as fast as the client reads.
      const pump = (): void => {
        while (open && written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (open) res.end();
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('when the endpoint answers 64 MiB, then the stored body is cut at the cap and the rest is not downloaded', async () => {
    const result = await runHttpEffect(fetch, {
      kind: 'http',
      request_id: 'r1',
      method: 'GET',
      url,
      headers: {},
      timeout_ms: 20_000,
      store: 'page',
    } as never);
    expect(result.ok).to.equal(true);
    const body = (result as { value: { body: string } }).value.body;
    expect(body.length).to.equal(MAX_BODY_BYTES);
    await closed;
    // Socket buffers hold a few MiB at most; reading everything would have taken all 64.
    expect(written).to.be.lessThan(16 * 1024 * 1024);
  });
});
