/**
 * Fault: a component process dies (SIGKILL, no chance to clean up) under a steady stream of
 * conversations and is started again. Every component runs as its own process, the api too.
 */
import { expect } from 'chai';
import type { ComponentName } from '../support/components.ts';
import { startFaultSystem, WORKERS, type FaultSystem } from '../support/fault-system.ts';
import { recordRow, startTraffic } from '../support/fault-traffic.ts';
import { waitFor } from '../support/services.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('faults: a component process killed and restarted', function () {
  this.timeout(240_000);
  let system: FaultSystem | undefined;

  before(async () => {
    system = await startFaultSystem();
  });

  after(async () => {
    await system?.close();
  });

  const victims: ComponentName[] = ['api', ...WORKERS.map((w) => w.component)];
  victims.forEach((victim, index) => {
    it(`when ${victim} is killed (SIGKILL) under a steady stream of conversations and restarted, then no message is lost, no reply sent twice, and each conversation keeps its order`, async () => {
      const sys = system!;
      const traffic = startTraffic(sys, { label: `kill-${victim}`, index });
      try {
        await waitFor(() => [...traffic.replies().values()].flat().length >= 6, {
          timeoutMs: 30_000,
          what: 'replies flowing before the fault',
        });
        await sys.kill(victim);
        await sleep(1500);
        await sys.restart(victim);
        await sleep(1500);
        await traffic.stop();
      } finally {
        await traffic.stop(true).catch(() => undefined);
      }
      await traffic.settle();
      const row = traffic.measure(`SIGKILL ${victim} and restart`);
      recordRow(row);
      expect(row.sent).to.be.greaterThan(10);
      expect({
        lost: row.lost,
        duplicated: row.duplicated,
        reordered: row.reordered,
      }).to.deep.equal({ lost: 0, duplicated: 0, reordered: 0 });
      if (victim === 'api') {
        // The platforms' side of it: posts refused while the edge was down were sent again.
        expect(row.retriedPosts).to.be.greaterThan(0);
      }
    });
  });
});
