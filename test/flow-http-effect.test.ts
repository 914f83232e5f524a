/**
 * The flow's http action against local servers: addresses checked after DNS and on every
 * redirect, redirects followed by hand, the answer capped while it streams. The refusal rows run
 * with the default (empty) allow-list; the rows that must reach a server allow 127.0.0.1 alone.
 */
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addressPolicy } from '../src/flow/address-policy.ts';
import type { Effect } from '../src/flow/engine/types.ts';
import { runHttpEffect, type HttpOptions } from '../src/flow/http-effect.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A server on `host` that records every request and answers with `handler`. */
async function serve(
  host: string,
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ server: Server; origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, seen };
}

function effect(url: string, extra: Partial<Extract<Effect, { kind: 'http' }>> = {}) {
  return {
    kind: 'http' as const,
    request_id: 'r1',
    method: 'GET' as const,
    url,
    headers: {},
    timeout_ms: 10_000,
    ...extra,
  };
}

const DENY: HttpOptions = { policy: addressPolicy([]) };
const LOOPBACK_ONE: HttpOptions = { policy: addressPolicy(['127.0.0.1/32']) };

describe('flow http effect', () => {
  const servers: Server[] = [];
  after(async () => {
    for (const server of servers)
      await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  async function start(
    host: string,
    handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
  ) {
    const started = await serve(host, handler);
    servers.push(started.server);
    return started;
  }
  const json = (res: ServerResponse, value: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };

  it('when the endpoint answers 64 MiB, then the step fails with BW_ERR_FLOW_BUDGET and the rest is not downloaded', async () => {
    let written = 0;
    let closed!: Promise<void>;
    const big = await start('127.0.0.1', (_req, res) => {
      let open = true;
      closed = new Promise((resolve) => res.on('close', () => ((open = false), resolve())));
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // 64 MiB, written only as fast as the client reads, with no content-length.
      const pump = (): void => {
        while (open && written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (open) res.end();
      };
      pump();
    });
    const result = await runHttpEffect(
      { ...LOOPBACK_ONE, maxBodyBytes: 1024 * 1024 },
      effect(`${big.origin}/big`),
    );
    expect(result).to.deep.include({ ok: false, code: 'BW_ERR_FLOW_BUDGET' });
    await closed;
    // Socket buffers hold a few MiB at most; reading everything would have taken all 64.
    expect(written).to.be.lessThan(16 * 1024 * 1024);
  });

  it('when a request body repeats a large value past the cap, then the step fails with BW_ERR_FLOW_BUDGET and nothing is sent', async () => {
    const sink = await start('127.0.0.1', (_req, res) => json(res, {}));
    // What a body template naming one variable a hundred times renders to: the same object.
    const value = { text: 'x'.repeat(100 * 1024) };
    const body = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, value]));
    const result = await runHttpEffect(
      { ...LOOPBACK_ONE, maxBodyBytes: 256 * 1024 },
      effect(`${sink.origin}/in`, { method: 'POST', body }),
    );
    expect(result).to.deep.include({ ok: false, code: 'BW_ERR_FLOW_BUDGET' });
    expect(sink.seen).to.deep.equal([]);
    const fits = await runHttpEffect(
      { ...LOOPBACK_ONE, maxBodyBytes: 256 * 1024 },
      effect(`${sink.origin}/in`, { method: 'POST', body: { k0: value } }),
    );
    expect(fits).to.deep.include({ ok: true });
    expect(sink.seen).to.have.length(1);
  });

  it('when the allow-list names a loopback address with one port, then a server there is reached and one at another port of it is refused, unreached', async () => {
    const allowed = await start('127.0.0.1', (_req, res) => json(res, { ok: 1 }));
    const other = await start('127.0.0.1', (_req, res) => json(res, { ok: 2 }));
    const options: HttpOptions = {
      policy: addressPolicy([`127.0.0.1:${new URL(allowed.origin).port}`]),
    };
    const reached = await runHttpEffect(options, effect(`${allowed.origin}/x`));
    expect(reached).to.deep.include({ ok: true, value: { status: 200, body: { ok: 1 } } });
    const refused = await runHttpEffect(options, effect(`${other.origin}/x`));
    expect(refused).to.deep.include({ ok: false, code: 'BW_ERR_FLOW_HTTP_REFUSED' });
    expect(other.seen).to.deep.equal([]);
  });

  it('when the answer fits under the cap, then its JSON comes back', async () => {
    const small = await start('127.0.0.1', (_req, res) => json(res, { name: 'Ana' }));
    const result = await runHttpEffect(LOOPBACK_ONE, effect(`${small.origin}/who`));
    expect(result).to.deep.include({ ok: true, value: { status: 200, body: { name: 'Ana' } } });
  });

  describe('with the default allow-list (empty)', () => {
    let target: Awaited<ReturnType<typeof serve>>;
    before(async () => {
      target = await start('127.0.0.1', (_req, res) => json(res, { secret: 'metrics' }));
    });

    it('when a step calls a loopback server by any spelling, then it is refused and the server sees nothing', async () => {
      const port = new URL(target.origin).port;
      const spellings = [
        `http://127.0.0.1:${port}/metrics`,
        `http://2130706433:${port}/readyz`,
        `http://0x7f.1:${port}/`,
        `http://017700000001:${port}/`,
        `http://127.1:${port}/`,
        `http://[::1]:${port}/`,
        `http://[::ffff:127.0.0.1]:${port}/`,
        `http://[::ffff:7f00:1]:${port}/`,
        `http://localhost:${port}/metrics`,
        `http://0.0.0.0:${port}/`,
      ];
      for (const url of spellings) {
        const result = await runHttpEffect(DENY, effect(url));
        expect(result, url).to.deep.include({ ok: false, code: 'BW_ERR_FLOW_HTTP_REFUSED' });
      }
      expect(target.seen).to.deep.equal([]);
    });

    it('when a step calls the cloud metadata address, then it is refused before any connection', async () => {
      for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/']) {
        const result = await runHttpEffect(DENY, effect(url));
        expect(result, url).to.deep.include({ ok: false, code: 'BW_ERR_FLOW_HTTP_REFUSED' });
        expect(result.error).to.match(/metadata/);
      }
    });
  });

  describe('redirects', () => {
    it('when an allowed server redirects to the metadata address or another loopback address, then the step is refused and nothing is fetched there', async () => {
      const inner = await start('127.0.0.2', (_req, res) => json(res, { secret: 'inner' }));
      const innerPort = new URL(inner.origin).port;
      const targets = [
        'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
        `${inner.origin}/secret`,
        `http://2130706434:${innerPort}/secret`,
        `http://[::1]:${innerPort}/secret`,
      ];
      const outer = await start('127.0.0.1', (req, res) => {
        const to = targets[Number(new URL(req.url ?? '/', 'http://x').searchParams.get('i'))];
        res.writeHead(302, { location: to });
        res.end();
      });
      for (let i = 0; i < targets.length; i += 1) {
        const result = await runHttpEffect(LOOPBACK_ONE, effect(`${outer.origin}/go?i=${i}`));
        expect(result, targets[i]).to.deep.include({ ok: false, code: 'BW_ERR_FLOW_HTTP_REFUSED' });
      }
      expect(outer.seen).to.have.length(targets.length);
      expect(inner.seen).to.deep.equal([]);
    });

    it('when a POST is redirected 307 to another origin, then the flow headers and the body are dropped', async () => {
      const other = await start('127.0.0.1', (_req, res) => json(res, { ok: true }));
      const first = await start('127.0.0.1', (_req, res) => {
        res.writeHead(307, { location: `${other.origin}/landing` });
        res.end();
      });
      const result = await runHttpEffect(
        LOOPBACK_ONE,
        effect(`${first.origin}/start`, {
          method: 'POST',
          headers: { 'X-Api-Key': 'k-123', Authorization: 'Bearer t-456' },
          body: { card: '4111' },
        }),
      );
      expect(result.ok).to.equal(true);
      expect(first.seen[0]!.headers['x-api-key']).to.equal('k-123');
      expect(first.seen[0]!.body).to.equal('{"card":"4111"}');
      const landed = other.seen[0]!;
      expect(landed.method).to.equal('POST');
      expect(landed.headers['x-api-key']).to.equal(undefined);
      expect(landed.headers.authorization).to.equal(undefined);
      expect(landed.body).to.equal('');
    });

    it('when a POST is redirected 307 within its origin, then headers and body go along', async () => {
      const server = await start('127.0.0.1', (req, res) => {
        if (req.url === '/start') {
          res.writeHead(307, { location: '/again' });
          res.end();
        } else json(res, { ok: true });
      });
      await runHttpEffect(
        LOOPBACK_ONE,
        effect(`${server.origin}/start`, {
          method: 'POST',
          headers: { 'X-Api-Key': 'k-123' },
          body: { a: 1 },
        }),
      );
      expect(
        server.seen.map((s) => [s.method, s.url, s.headers['x-api-key'], s.body]),
      ).to.deep.equal([
        ['POST', '/start', 'k-123', '{"a":1}'],
        ['POST', '/again', 'k-123', '{"a":1}'],
      ]);
    });

    it('when a POST is answered 303 or 302, then the redirect is followed with a GET without body', async () => {
      for (const status of [303, 302, 301]) {
        const server = await start('127.0.0.1', (req, res) => {
          if (req.url === '/start') {
            res.writeHead(status, { location: '/done' });
            res.end();
          } else json(res, { ok: true });
        });
        await runHttpEffect(
          LOOPBACK_ONE,
          effect(`${server.origin}/start`, { method: 'POST', body: { a: 1 } }),
        );
        const second = server.seen[1]!;
        expect(
          [second.method, second.body, second.headers['content-type']],
          `${status}`,
        ).to.deep.equal(['GET', '', undefined]);
      }
    });

    it('when a server redirects without end, then the step is refused after 5 redirects', async () => {
      const server = await start('127.0.0.1', (req, res) => {
        res.writeHead(302, { location: `/n${(req.url ?? '').length}` });
        res.end();
      });
      const result = await runHttpEffect(LOOPBACK_ONE, effect(`${server.origin}/`));
      expect(result).to.deep.include({ ok: false, code: 'BW_ERR_FLOW_HTTP_REFUSED' });
      expect(server.seen).to.have.length(6);
    });

    it('when a redirect names another scheme, then it is refused', async () => {
      const server = await start('127.0.0.1', (_req, res) => {
        res.writeHead(302, { location: 'file:///etc/passwd' });
        res.end();
      });
      const result = await runHttpEffect(LOOPBACK_ONE, effect(`${server.origin}/`));
      expect(result).to.deep.include({ ok: false, code: 'BW_ERR_FLOW_HTTP_REFUSED' });
    });
  });
});
