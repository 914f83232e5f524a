/**
 * The broadcast bench (`npm run bench:broadcast`), see README.md. For each WhatsApp throughput in
 * BENCH_RATES (messages a second a number may send; default 80 and 1000), a whole system (every
 * component a process, the platform a stand-in on loopback, as the fault tests run it) with
 * BENCH_RECIPIENTS users (default 100,000) of one WhatsApp number:
 *
 * 1. making the broadcast: its audience fixed into recipients' rows (ms), and the dry run's;
 * 2. a user chatting with the same number, BENCH_PINGS messages one after another: the time from
 *    the webhook to the reply's call at the stand-in, without the broadcast (the baseline), then
 *    while it runs;
 * 3. the broadcast's sends a second at the stand-in over BENCH_WINDOW_S seconds (default 60) once
 *    it runs, against the configured rate (aim: at least 0.95 of it). The broadcast is then
 *    cancelled (BENCH_WINDOW_S=0 waits for it to finish: 100,000 at 80 a second is 21 minutes).
 *
 * Prints a table and the machine's load with each figure.
 */
import { cpus, loadavg } from 'node:os';
import { whatsappPayload } from '../../test/support/api.ts';
import { seedAudience } from '../../test/support/broadcast-audience.ts';
import { startFaultSystem, type FaultSystem } from '../../test/support/fault-system.ts';
import { percentile } from '../pipeline/report.ts';
import { intEnv } from '../lib/setup.ts';

const RECIPIENTS = intEnv('BENCH_RECIPIENTS', 100_000, 100);
const WINDOW_S = intEnv('BENCH_WINDOW_S', 60, 0);
const PINGS = intEnv('BENCH_PINGS', 40, 5);
const RATES = (process.env.BENCH_RATES || '80,1000').split(',').map(Number);
const TEXT = 'Spring bikes are in.';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = (): string => {
  const [one, five] = loadavg();
  return `${one?.toFixed(1)}/${five?.toFixed(1)}`;
};

interface Row {
  rate: number;
  makeMs: number;
  dryRunMs: number;
  sendsPerS: number;
  p50Without: number;
  p99Without: number;
  p50With: number;
  p99With: number;
  load: string;
}

async function measure(rate: number): Promise<Row> {
  const sys: FaultSystem = await startFaultSystem({
    settings: { WHATSAPP_MESSAGES_PER_SECOND: String(rate), LOG_LEVEL: 'warn' },
  });
  try {
    const channel: unknown = await sys.schema
      .db('channels')
      .where({ app_id: sys.whatsapp.appId, type: 'whatsapp' })
      .first('id');
    const channelId = (channel as { id: string }).id;
    for (let done = 0; done < RECIPIENTS; done += 10_000) {
      await seedAudience(sys.schema.db, {
        appId: sys.whatsapp.appId,
        channelId,
        channelType: 'whatsapp',
        first: 440_000_000_000 + done,
        count: Math.min(10_000, RECIPIENTS - done),
      });
    }
    await sys.schema.db.raw('analyze');
    let n = 0;
    const user = '15550001111';
    const ping = async (): Promise<number> => {
      n += 1;
      const text = `ping ${n}`;
      const started = Date.now();
      await fetch(`${sys.apiUrl}/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          whatsappPayload(sys.whatsapp.number, [{ id: `wamid.p${n}`, body: text, from: user }]),
        ),
      });
      for (;;) {
        const call = sys.stub.calls.findLast((c) => c.chat === user && c.text === `echo: ${text}`);
        if (call) return call.at - started;
        await sleep(2);
      }
    };
    const pings = async (): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < PINGS; i += 1) {
        times.push(await ping());
        await sleep(50);
      }
      return times.sort((a, b) => a - b);
    };
    await pings(); // warm up
    const without = await pings();
    const request = {
      name: 'Bench',
      channel_id: channelId,
      audience: { kind: 'all' },
      message: { message_type: 'text', text: TEXT },
    };
    let started = Date.now();
    const dry = await sys.admin('POST', `/v2/bots/${sys.whatsapp.appId}/broadcasts`, {
      ...request,
      dry_run: true,
    });
    const dryRunMs = Date.now() - started;
    // The chatting user is in the audience too.
    if (((dry.json as { will_send?: number }).will_send ?? 0) < RECIPIENTS)
      throw new Error(`dry run: ${JSON.stringify(dry.json)}`);
    started = Date.now();
    const made = await sys.admin('POST', `/v2/bots/${sys.whatsapp.appId}/broadcasts`, request);
    const makeMs = Date.now() - started;
    if (made.status !== 201) throw new Error(`not made: ${JSON.stringify(made.json)}`);
    const sent = () => sys.stub.calls.filter((c) => c.text === TEXT).length;
    while (sent() < Math.min(rate, RECIPIENTS / 10)) await sleep(50);
    const from = { at: Date.now(), sent: sent() };
    const during = await pings();
    const window = WINDOW_S === 0 ? Number.POSITIVE_INFINITY : WINDOW_S * 1000;
    while (Date.now() - from.at < window && sent() < RECIPIENTS) await sleep(200);
    const sendsPerS = ((sent() - from.sent) * 1000) / (Date.now() - from.at);
    await sys.admin('POST', `/v2/broadcasts/${(made.json as { id: string }).id}/cancel`);
    return {
      rate,
      makeMs,
      dryRunMs,
      sendsPerS,
      p50Without: percentile(without, 0.5),
      p99Without: percentile(without, 0.99),
      p50With: percentile(during, 0.5),
      p99With: percentile(during, 0.99),
      load: load(),
    };
  } finally {
    await sys.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `broadcast bench: ${RECIPIENTS} recipients, window ${WINDOW_S} s, ${PINGS} pings; ${cpus().length} cores, load ${load()}`,
  );
  const rows: Row[] = [];
  for (const rate of RATES) rows.push(await measure(rate));
  console.log(
    '\n| limit /s | sends /s | of limit | make ms | dry run ms | reply p50 without / with ms | reply p99 without / with ms | p99 ratio | load 1/5 min |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    console.log(
      `| ${r.rate} | ${r.sendsPerS.toFixed(1)} | ${(r.sendsPerS / r.rate).toFixed(3)} | ${r.makeMs} | ${r.dryRunMs} | ${r.p50Without} / ${r.p50With} | ${r.p99Without} / ${r.p99With} | ${(r.p99With / r.p99Without).toFixed(2)} | ${r.load} |`,
    );
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
