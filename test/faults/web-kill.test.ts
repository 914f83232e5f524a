/**
 * Fault: under a steady stream of web visitors (sessions, messages through the web callback,
 * replies read from each visitor's event stream, resumed with Last-Event-ID as the widget does),
 * the `channel` process, which appends to the visitors' streams, or the `api` process, which
 * serves them, dies (SIGKILL) and is started again. Every component runs as its own process.
 * Unlike the platforms, the web channel admits no repeated reply at all: its append is idempotent
 * (docs/web-channel.md, Guarantees).
 */
import { expect } from 'chai';
import type { ComponentName } from '../support/components.ts';
import { busState, startFaultSystem, type FaultSystem } from '../support/fault-system.ts';
import { recordRow } from '../support/fault-traffic.ts';
import { startWebTraffic, VISITOR_ORIGIN, type WebTraffic } from '../support/fault-web-traffic.ts';
import { ECHO_FLOW } from '../support/flows.ts';
import { forEachRedisMode } from '../support/redis-modes.ts';
import { waitFor } from '../support/services.ts';
import { stallOutboundRecords } from '../support/transcript-stall.ts';
import { channelPendingOf, webInFlight, type WebInFlight } from '../support/web-in-flight.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const VISITORS = 4;

async function deadLetters(system: FaultSystem): Promise<number> {
  const state = (await busState(system)) as Record<string, { dead: number }>;
  return Object.values(state).reduce((sum, topic) => sum + topic.dead, 0);
}

forEachRedisMode(
  'faults: web visitors while a component process is killed and restarted',
  function (mode) {
    this.timeout(240_000);
    let system: FaultSystem | undefined;
    let appId = '';
    // Its event streams reconnect until closed, also when a test failed half way.
    let traffic: WebTraffic | undefined;
    const where = mode.name === 'cluster' ? ' (Redis Cluster)' : '';

    before(async function () {
      this.timeout(180_000);
      system = await startFaultSystem({ redisUrl: mode.url() });
      const created = await system.admin('POST', '/v2/bots', {
        name: 'echo web',
        flow: ECHO_FLOW,
        channel: { type: 'web', details: { allowed_origins: [VISITOR_ORIGIN] } },
      });
      if (created.status !== 201) throw new Error(`web bot not created: ${created.json}`);
      appId = created.json.app_id;
    });

    afterEach(async () => {
      await traffic?.close();
    });

    after(async () => {
      await system?.close();
    });

    const cases: { victim: ComponentName; kills: number; stall?: boolean; staging: string }[] = [
      { victim: 'channel', kills: 3, staging: 'the event streams stay open' },
      {
        victim: 'channel',
        kills: 1,
        stall: true,
        staging:
          'the turns whose replies were shown and not yet recorded (their transcript rows were stalled at the kill) are handled again without showing anything twice',
      },
      {
        victim: 'api',
        kills: 2,
        staging: 'every visitor reconnects with Last-Event-ID and resumes',
      },
    ];
    cases.forEach(({ victim, kills, stall, staging }, index) => {
      const how = stall ? 'while replies wait to be recorded' : `${kills} times`;
      it(`when ${victim} is killed (SIGKILL, ${how}) under ${VISITORS} web visitors' traffic and restarted, then ${staging}; each visitor sees every reply once and in order, nothing is dead-lettered, and the transcript has each message once`, async () => {
        const sys = system!;
        const deadBefore = await deadLetters(sys);
        const inFlight: WebInFlight = { inFlight: 0, shown: 0, shownNotRecorded: 0 };
        traffic = await startWebTraffic(sys, {
          label: `web-kill-${index}`,
          appId,
          visitors: VISITORS,
        });
        const shown = () => [...traffic!.replies().values()].flat().length;
        try {
          await waitFor(() => shown() >= 2 * VISITORS, {
            timeoutMs: 30_000,
            what: 'replies flowing before the fault',
          });
          for (let kill = 0; kill < kills; kill += 1) {
            if (kill > 0) {
              // Traffic flows again (and, after an api restart, the streams are back) first.
              const before = shown();
              await waitFor(() => shown() >= before + 2 * VISITORS, {
                timeoutMs: 30_000,
                what: 'replies flowing again after the restart',
              });
            }
            // A stalled transcript: replies are shown on the streams, their rows wait, until the
            // restarted channel has taken the killed one's turns over and handled them again (each
            // finds its reply unrecorded and appends it again, which must show nothing twice).
            const killed = sys.processes.get(victim)!.name;
            const stalled = stall ? await stallOutboundRecords(sys.schema.db) : undefined;
            try {
              if (stalled) await sleep(1500);
              await sys.kill(victim);
              if (victim === 'channel') {
                const left = await webInFlight(sys);
                inFlight.inFlight += left.inFlight;
                inFlight.shown += left.shown;
                inFlight.shownNotRecorded += left.shownNotRecorded;
              }
              await sleep(1500);
              await sys.restart(victim);
              if (stalled) {
                await waitFor(async () => (await channelPendingOf(sys, killed)) === 0, {
                  timeoutMs: 20_000,
                  what: "the killed channel's turns taken over",
                });
                await sleep(1000);
              }
            } finally {
              await stalled?.release();
            }
          }
          // Long enough for every stream to come back (the api asks for 3 s between attempts).
          await sleep(victim === 'api' ? 5000 : 1500);
          await traffic.stop();
        } finally {
          await traffic.stop(true).catch(() => undefined);
        }
        await traffic.settle();
        const row = traffic.measure(`web: SIGKILL ${victim} ${how}, restart${where}`);
        const dead = (await deadLetters(sys)) - deadBefore;
        row.extra = {
          ...row.extra,
          'dead letters': dead,
          ...(victim === 'channel'
            ? {
                'in flight at the kills': inFlight.inFlight,
                'of them shown': inFlight.shown,
                'shown, not recorded': inFlight.shownNotRecorded,
              }
            : {}),
        };
        const transcript = await traffic.transcriptProblems();
        const anomalies = traffic.anomalies();
        recordRow(row);

        expect(row.sent).to.be.greaterThan(10);
        const details = JSON.stringify({ anomalies, bus: await busState(sys) }, null, 2);
        expect(row.lost, details).to.equal(0);
        expect(row.duplicated, details).to.equal(0);
        expect(row.reordered, details).to.equal(0);
        expect(anomalies).to.deep.equal({});
        expect(dead).to.equal(0);
        expect(transcript).to.deep.equal([]);
        const reconnects = row.extra['stream reconnects'];
        if (victim === 'api') {
          // The visitors' side of it: posts and streams failed while the api was down.
          expect(row.retriedPosts).to.be.greaterThan(0);
          expect(reconnects).to.be.at.least(VISITORS);
        } else {
          expect(reconnects).to.equal(0);
        }
        // The window the idempotent append closes was open at the kill.
        if (stall) expect(inFlight.shownNotRecorded).to.be.greaterThan(0);
      });
    });
  },
);
