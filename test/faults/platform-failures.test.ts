/**
 * Fault: the platform has a bad time for a few seconds (rate limits with retry_after, server
 * errors, requests that hang until they time out) under a steady stream of conversations. Replies
 * are delayed, never lost, and each is accepted by the platform once.
 */
import { expect } from 'chai';
import { startFaultSystem, type FaultSystem } from '../support/fault-system.ts';
import { forEachRedisMode } from '../support/redis-modes.ts';
import { expectDelivered, recordRow, startTraffic } from '../support/fault-traffic.ts';
import type { PlatformCall, StubAnswer } from '../support/platform-stub.ts';
import { waitFor } from '../support/services.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface PlatformFault {
  name: string;
  /** How long the platform misbehaves (ms). */
  forMs: number;
  answer: (call: PlatformCall) => StubAnswer;
}

const FAULTS: PlatformFault[] = [
  {
    name: 'platform 429 with retry_after',
    forMs: 3000,
    answer: (call) =>
      call.platform === 'telegram'
        ? {
            status: 429,
            body: {
              ok: false,
              error_code: 429,
              description: 'Too Many Requests: retry after 1',
              parameters: { retry_after: 1 },
            },
          }
        : {
            status: 429,
            body: { error: { message: '(#130429) Rate limit hit', code: 130429 } },
          },
  },
  {
    name: 'platform 500',
    forMs: 3000,
    answer: (call) =>
      call.platform === 'telegram'
        ? {
            status: 500,
            body: { ok: false, error_code: 500, description: 'Internal Server Error' },
          }
        : { status: 500, body: { error: { message: 'An unknown error occurred', code: 1 } } },
  },
  {
    // A hung request is given up after the platform client's timeout (10 s); it was not delivered.
    name: 'platform hangs (timeouts)',
    forMs: 2000,
    answer: () => 'hang',
  },
];

forEachRedisMode('faults: the platform failing for a while', function (mode) {
  this.timeout(240_000);
  const where = mode.name === 'cluster' ? ' (Redis Cluster)' : '';
  let system: FaultSystem | undefined;

  before(async function () {
    this.timeout(180_000);
    system = await startFaultSystem({ redisUrl: mode.url() });
  });

  after(async () => {
    system?.stub.behave(undefined);
    await system?.close();
  });

  FAULTS.forEach((fault, index) => {
    it(`when the ${fault.name} for ${fault.forMs / 1000} s under a steady stream of conversations, then replies are delayed, not lost, and each is accepted once and in order`, async () => {
      const sys = system!;
      const traffic = startTraffic(sys, { label: `platform-${index}`, index });
      const refusedBefore = sys.stub.calls.filter((c) => !c.delivered).length;
      try {
        await waitFor(() => [...traffic.replies().values()].flat().length >= 6, {
          timeoutMs: 30_000,
          what: 'replies flowing before the fault',
        });
        sys.stub.behave(fault.answer);
        await sleep(fault.forMs);
        sys.stub.behave(undefined);
        await sleep(1000);
        await traffic.stop();
      } finally {
        sys.stub.behave(undefined);
        await traffic.stop(true).catch(() => undefined);
      }
      await traffic.settle();
      const refused = sys.stub.calls.filter((c) => !c.delivered).length - refusedBefore;
      const row = {
        ...traffic.measure(`${fault.name}${where}`),
        extra: { 'platform refused': refused },
      };
      recordRow(row);
      expect(refused, 'sends the platform refused or left hanging').to.be.greaterThan(0);
      expect(row.sent).to.be.greaterThan(10);
      await expectDelivered(sys, traffic, row);
    });
  });
});
