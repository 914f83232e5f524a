/**
 * Outside calls that get no answer keep their cause: the code (ECONNREFUSED, timeout, TLS) in the
 * message and the original error as `cause`, never the request URL with its bot token.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { PlatformError, TelegramApi } from '../src/channel/platform-api.ts';
import { failureCause } from '../src/shared/failure-cause.ts';
import { freePort } from './support/private-services.ts';

const TOKEN = '123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('the call did not fail');
}

describe('failureCause', () => {
  const servers: Server[] = [];

  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('when nothing listens on the port, then fetch failure gives ECONNREFUSED', async () => {
    const port = await freePort();
    const error = await thrown(() => fetch(`http://127.0.0.1:${port}/bot${TOKEN}/setWebhook`));
    expect(failureCause(error)).to.equal('ECONNREFUSED');
  });

  it('when the server never answers, then the timed-out fetch gives timeout', async () => {
    const server = createServer(() => undefined); // holds every request
    servers.push(server);
    const port = await listen(server);
    const error = await thrown(() =>
      fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(200) }),
    );
    expect(failureCause(error)).to.equal('timeout');
  });

  it('when https meets a server that does not speak TLS, then the TLS error code is given', async () => {
    const server = createServer((_req, res) => res.end('plain'));
    servers.push(server);
    const port = await listen(server);
    const error = await thrown(() => fetch(`https://127.0.0.1:${port}/`));
    expect(failureCause(error)).to.match(/^(ERR_SSL_|EPROTO|ECONNRESET)/);
  });

  it('when fetch refuses the port (127.0.0.1:1), then the cause is bad port', async () => {
    const error = await thrown(() => fetch('http://127.0.0.1:1/'));
    expect(failureCause(error)).to.equal('bad port');
  });

  it('when the error has no code, then its name is given, and never its text', () => {
    expect(failureCause(new TypeError(`bad https://x/bot${TOKEN}/`))).to.equal('TypeError');
    expect(failureCause(Object.assign(new Error('x'), { code: `bot${TOKEN}` }))).to.equal('Error');
    expect(failureCause(undefined)).to.equal('Error');
  });

  it('when Telegram cannot be reached, then TelegramApi rejects with a retryable PlatformError naming ECONNREFUSED, with the cause and without the token', async () => {
    const port = await freePort();
    const api = new TelegramApi(`http://127.0.0.1:${port}`, { fetch });
    const error = await thrown(() => api.call(TOKEN, 'sendMessage', { chat_id: 1, text: 'hi' }));
    expect(error).to.be.instanceOf(PlatformError);
    const failure = error as PlatformError;
    expect(failure.message).to.equal('the platform could not be reached (ECONNREFUSED)');
    expect(failure.retryable).to.equal(true);
    expect(failureCause(failure.cause)).to.equal('ECONNREFUSED');
    expect(failure.message).not.to.contain(TOKEN);
  });
});
