/**
 * How well a flow understands free-text answers to its menus (`menus.ts`): the share matched to
 * the right option, matched wrongly, and asked again, for exact matching (typed titles, as before
 * issue 37) and for matching by meaning with the embedded model (titles only, and titles plus the
 * options' example phrases), through the flow's own code: `createUnderstanding` scores the text,
 * `runTurn` decides. Then a sweep of the rule's two thresholds, the time of scoring one answer
 * (p50/p99), and the machine's load. No LLM is measured (none is available offline).
 *
 *   node --import tsx bench/understanding/run.ts
 *   BENCH_MIN_SCORE=0.4 BENCH_MARGIN=0.05 node --import tsx bench/understanding/run.ts
 */
import { cpus, loadavg } from 'node:os';
import { runTurn } from '../../src/flow/engine/run-turn.ts';
import {
  DEFAULT_MATCHING,
  hasWords,
  pickBest,
  type MatchSettings,
  type MeaningScores,
} from '../../src/flow/engine/meaning.ts';
import type { ConversationState } from '../../src/flow/engine/types.ts';
import { createUnderstanding } from '../../src/flow/understanding.ts';
import { LocalEmbeddingProvider } from '../../src/shared/embeddings/local-provider.ts';
import type { Flow } from '../../src/shared/flows/types.ts';
import { unclearCandidates } from '../../src/flow/understanding-llm.ts';
import { FIRST_MESSAGES, INTENTS } from './intents.ts';
import { MENUS, type Answer, type Kind, type Menu } from './menus.ts';

/** Turns scored at once in the busy measurement. */
const CONCURRENT = 8;

const settings: MatchSettings = {
  minScore: Number(process.env.BENCH_MIN_SCORE ?? DEFAULT_MATCHING.minScore),
  margin: Number(process.env.BENCH_MARGIN ?? DEFAULT_MATCHING.margin),
};

/** The menu as a flow: its options as buttons (a list above three), a choice wait, one state per option. */
function flowOf(menu: Menu, withExamples: boolean): Flow {
  const options = menu.options.map((o) => ({
    id: o.id,
    title: o.title,
    ...(withExamples ? { examples: o.examples } : {}),
  }));
  const send =
    options.length <= 3
      ? { text: menu.prompt, buttons: options }
      : { text: menu.prompt, list: { button: 'Options', sections: [{ rows: options }] } };
  return {
    version: 1,
    start: 'menu',
    states: {
      menu: {
        actions: [{ send }],
        wait: { store: 'picked', expect: 'choice', max_retries: 5 },
        next: 'done',
      },
      done: { end: true },
    },
  };
}

const WAITING: ConversationState = {
  state: 'menu',
  vars: {},
  awaiting: { kind: 'input', state: 'menu', retries: 0 },
};

type Outcome = 'right' | 'wrong' | 'reasked';

function outcome(answer: Answer, picked: string | undefined): Outcome {
  if (picked === undefined) return 'reasked';
  return picked === answer.means ? 'right' : 'wrong';
}

/** What the engine does with the answer, given its scores (none: exact matching only). */
function decide(flow: Flow, text: string, meaning: MeaningScores | undefined, rule: MatchSettings) {
  const result = runTurn(
    flow,
    WAITING,
    { type: 'input', message_type: 'text', text, ...(meaning ? { meaning } : {}) },
    { newRequestId: () => 'r', matching: rule },
  );
  return result.state.vars.picked as string | undefined;
}

interface Tally {
  meaningful: number;
  right: number;
  wrong: number;
  none: number;
  noneReasked: number;
  /** Answers that mean an option and were asked again. */
  reasked: number;
  all: number;
}

function tally(rows: { answer: Answer; outcome: Outcome }[]): Tally {
  const t: Tally = {
    ...{ meaningful: 0, right: 0, wrong: 0, none: 0, noneReasked: 0, reasked: 0 },
    all: rows.length,
  };
  for (const { answer, outcome: o } of rows) {
    if (answer.means === null) {
      t.none += 1;
      if (o === 'reasked') t.noneReasked += 1;
    } else {
      t.meaningful += 1;
      if (o === 'right') t.right += 1;
      if (o === 'reasked') t.reasked += 1;
    }
    if (o === 'wrong') t.wrong += 1;
  }
  return t;
}

const pct = (n: number, of: number): string =>
  of === 0 ? '-' : `${((100 * n) / of).toFixed(1)} %`;

function row(name: string, t: Tally): string {
  return `| ${name.padEnd(36)} | ${pct(t.right, t.meaningful).padStart(7)} (${t.right}/${t.meaningful}) | ${pct(t.wrong, t.all).padStart(6)} (${t.wrong}/${t.all}) | ${pct(t.reasked, t.meaningful).padStart(7)} | ${pct(t.noneReasked, t.none).padStart(7)} (${t.noneReasked}/${t.none}) |`;
}

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;

async function main(): Promise<void> {
  const load0 = loadavg();
  const provider = new LocalEmbeddingProvider();
  const understanding = createUnderstanding(
    provider,
    (e) => {
      throw e;
    },
    30_000,
  );
  const answers = MENUS.flatMap((menu) => menu.answers.map((answer) => ({ menu, answer })));
  const counts = { all: answers.length, meaningful: answers.filter((x) => x.answer.means).length };
  process.stdout.write(
    `bench/understanding: ${counts.all} answers to ${MENUS.length} menus (${counts.meaningful} mean an option, ${counts.all - counts.meaningful} none or two); rule min_score ${settings.minScore}, margin ${settings.margin}\n`,
  );

  const started = performance.now();
  await provider.embed(['warm up']);
  const loadMs = performance.now() - started;

  const scored: Record<'titles' | 'examples', (MeaningScores | undefined)[]> = {
    titles: [],
    examples: [],
  };
  const times: number[] = [];
  const firstTimes: number[] = [];
  for (const mode of ['titles', 'examples'] as const) {
    const seen = new Set<Menu>();
    for (const { menu, answer } of answers) {
      const flow = flowOf(menu, mode === 'examples');
      const first = !seen.has(menu);
      seen.add(menu);
      const event = { type: 'input' as const, message_type: 'text', text: answer.text };
      const t0 = performance.now();
      const meaning = await understanding.scores(flow, WAITING, event);
      // The phrases' vectors are made on a menu's first answer; later answers embed only the text.
      if (mode === 'examples') (first ? firstTimes : times).push(performance.now() - t0);
      scored[mode].push(meaning);
    }
  }

  const results = (mode: 'exact' | 'titles' | 'examples', rule = settings) =>
    answers.map(({ menu, answer }, i) => {
      const flow = flowOf(menu, mode === 'examples');
      const meaning = mode === 'exact' ? undefined : scored[mode][i];
      return { answer, outcome: outcome(answer, decide(flow, answer.text, meaning, rule)) };
    });

  const header = `| ${'method'.padEnd(36)} | right (of meaning an option) | wrong (of all) | re-asked (of meaning an option) | re-asked (of none/two) |\n|---|---|---|---|---|`;
  process.stdout.write(`\n${header}\n`);
  process.stdout.write(`${row('exact titles (before)', tally(results('exact')))}\n`);
  process.stdout.write(`${row('embeddings, titles only', tally(results('titles')))}\n`);
  process.stdout.write(`${row('embeddings, titles + examples', tally(results('examples')))}\n`);
  process.stdout.write(
    `| ${'embeddings + LLM'.padEnd(36)} | not measured: no LLM is available on this machine |\n`,
  );

  // What an LLM could add: the answers it would be asked about (the scores unclear), of which
  // those meaning an option are the most a perfect one could get right on top.
  const unclearOnes = answers.filter(
    ({ menu, answer }, i) =>
      llmShare(flowOf(menu, true), WAITING, [answer.text], [scored.examples[i]]) === 1,
  );
  const couldGain = unclearOnes.filter(({ answer }) => answer.means !== null).length;
  const rightNow = tally(results('examples')).right;
  process.stdout.write(
    `With matching.llm the LLM would be asked about ${unclearOnes.length} of ${answers.length} answers (${pct(unclearOnes.length, answers.length)}); ${couldGain} of them mean an option, so a perfect LLM would bring right to at most ${pct(rightNow + couldGain, counts.meaningful)}\n`,
  );

  const best = results('examples');
  process.stdout.write('\nBy kind of answer (embeddings, titles + examples):\n');
  const kinds = [...new Set(answers.map((x) => x.answer.kind))] as Kind[];
  for (const kind of kinds) {
    const rows = best.filter((r) => r.answer.kind === kind);
    const t = tally(rows);
    const shown =
      kind === 'none' || kind === 'ambiguous'
        ? `re-asked ${pct(t.noneReasked, t.none)} (${t.noneReasked}/${t.none}), wrong ${t.wrong}`
        : `right ${pct(t.right, t.meaningful)} (${t.right}/${t.meaningful}), wrong ${t.wrong}`;
    process.stdout.write(`  ${kind.padEnd(11)} ${shown}\n`);
  }
  const wrongs = best.filter((r) => r.outcome === 'wrong');
  if (wrongs.length > 0) {
    process.stdout.write('\nWrong matches:\n');
    for (const w of wrongs) {
      const i = best.indexOf(w);
      const s = scored.examples[i]?.options?.map((o) => `${o.id} ${o.score.toFixed(3)}`).join(', ');
      process.stdout.write(`  "${w.answer.text}" (means ${w.answer.means ?? 'none'}): ${s}\n`);
    }
  }

  // The sweep, straight on the scores with the same rule (what the engine applies).
  process.stdout.write(
    '\nSweep (titles + examples): min_score × margin → right / wrong / none re-asked\n',
  );
  const margins = [0.04, 0.08, 0.1, 0.12, 0.14, 0.16, 0.18];
  process.stdout.write(
    `  min    ${margins.map((m) => `margin ${m.toFixed(2)}`.padEnd(24)).join('')}\n`,
  );
  for (let min = 0.3; min <= 0.7001; min += 0.05) {
    const cells = margins.map((margin) => {
      const t = tally(
        answers.map(({ answer }, i) => {
          const options = scored.examples[i]?.options ?? [];
          const hit = hasWords(answer.text)
            ? pickBest(
                options.map((o) => ({ kind: 'option' as const, name: o.id, score: o.score })),
                { minScore: min, margin },
              )
            : undefined;
          return { answer, outcome: outcome(answer, hit?.name) };
        }),
      );
      return `${pct(t.right, t.meaningful)}/${pct(t.wrong, t.all)}/${pct(t.noneReasked, t.none)}`.padEnd(
        24,
      );
    });
    process.stdout.write(`  ${min.toFixed(3)}  ${cells.join('')}\n`);
  }

  times.sort((x, y) => x - y);
  firstTimes.sort((x, y) => x - y);
  // A busy flow process: CONCURRENT turns at a time share the model's one thread.
  const busy: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      for (let i = next++; i < answers.length; i = next++) {
        const { menu, answer } = answers[i]!;
        const event = { type: 'input' as const, message_type: 'text', text: `${answer.text} ` };
        const t0 = performance.now();
        await understanding.scores(flowOf(menu, true), WAITING, event);
        busy.push(performance.now() - t0);
      }
    }),
  );
  busy.sort((x, y) => x - y);
  const load1 = loadavg();
  process.stdout.write(
    `\nMatching one answer (embed the text in the model's thread, score the options), phrases already embedded: p50 ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms, max ${times.at(-1)?.toFixed(1)} ms over ${times.length} answers, one at a time\n` +
      `${CONCURRENT} turns at a time: p50 ${quantile(busy, 0.5).toFixed(1)} ms, p99 ${quantile(busy, 0.99).toFixed(1)} ms over ${busy.length}\n` +
      `A menu's first answer (its 16 phrases embedded too, once per process): ${firstTimes.map((t) => t.toFixed(0)).join(', ')} ms; loading the model: ${loadMs.toFixed(0)} ms\n`,
  );
  process.stdout.write(
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load average before ${load0.map((l) => l.toFixed(2)).join(' ')}, after ${load1.map((l) => l.toFixed(2)).join(' ')}\n`,
  );
  await firstMessages(understanding);
  await understanding.close();
}

/** Whether the LLM would be asked about the text (a flow with `matching.llm`), and how often. */
function llmShare(
  flow: Flow,
  state: ConversationState,
  texts: string[],
  scores: (MeaningScores | undefined)[],
) {
  const asking = { ...flow, matching: { ...flow.matching, llm: true } };
  return texts.filter((text, i) => {
    const meaning = scores[i];
    const event = {
      type: 'input' as const,
      message_type: 'text',
      text,
      ...(meaning ? { meaning } : {}),
    };
    return unclearCandidates(asking, state, event, settings) !== undefined;
  }).length;
}

/**
 * First messages to a bot with two global intents (`intents.ts`): the share taken for the right
 * intent, wrongly, and left to the flow (the greeting), with and without the small-talk rival
 * (`SMALL_TALK`), and how often a flow with `matching.llm` would ask the LLM.
 */
async function firstMessages(understanding: ReturnType<typeof createUnderstanding>) {
  const flow = {
    version: 1,
    start: 'welcome',
    intents: INTENTS.map((i) => ({
      ...i,
      global: i.name === 'human' ? { handoff: {} } : { to: i.name },
    })),
    states: {
      welcome: {
        actions: [{ send: { text: 'Hi! How can I help?' } }],
        wait: { store: 'q' },
        next: 'welcome',
      },
      cancel: { actions: [{ send: { text: 'Which order?' } }], end: true },
    },
  } as unknown as Flow;
  const fresh: ConversationState = { state: null, vars: {} };
  const scores: MeaningScores[] = [];
  for (const message of FIRST_MESSAGES) {
    const event = { type: 'input' as const, message_type: 'text', text: message.text };
    scores.push((await understanding.scores(flow, fresh, event)) ?? {});
  }
  const taken = (text: string, meaning: MeaningScores): string | undefined => {
    const result = runTurn(
      flow,
      fresh,
      { type: 'input', message_type: 'text', text, meaning },
      {
        newRequestId: () => 'r',
        matching: settings,
      },
    );
    if (result.handoff) return 'human';
    return result.state.state === 'cancel' ? 'cancel' : undefined;
  };
  const rows = (withSmallTalk: boolean) =>
    FIRST_MESSAGES.map((answer, i) => {
      const meaning = withSmallTalk ? scores[i]! : { ...scores[i]!, small_talk: undefined };
      return { answer, outcome: outcome(answer, taken(answer.text, meaning)) };
    });
  const meaningful = FIRST_MESSAGES.filter((m) => m.means).length;
  process.stdout.write(
    `\nFirst messages to a bot with two global intents (a person, cancel): ${FIRST_MESSAGES.length}, ${meaningful} mean one\n` +
      `| ${'method'.padEnd(36)} | right (of meaning an intent) | wrong (of all) | left to the flow (of meaning one) | left to the flow (of none) |\n|---|---|---|---|---|\n` +
      `${row('embeddings, no small-talk rival', tally(rows(false)))}\n` +
      `${row('embeddings, small-talk rival', tally(rows(true)))}\n`,
  );
  const before = rows(false);
  for (const [i, r] of rows(true).entries()) {
    if (r.outcome !== before[i]!.outcome) {
      process.stdout.write(
        `  with the rival: "${r.answer.text}" ${before[i]!.outcome} → ${r.outcome} (small talk ${scores[i]!.small_talk?.toFixed(3)}, ${scores[i]!.intents?.map((x) => `${x.name} ${x.score.toFixed(3)}`).join(', ')})\n`,
      );
    }
  }
  for (const r of rows(true).filter((x) => x.outcome === 'wrong')) {
    const i = FIRST_MESSAGES.indexOf(FIRST_MESSAGES.find((m) => m.text === r.answer.text)!);
    process.stdout.write(`  wrong: "${r.answer.text}" ${JSON.stringify(scores[i])}\n`);
  }
  const asked = llmShare(
    flow,
    fresh,
    FIRST_MESSAGES.map((m) => m.text),
    scores,
  );
  process.stdout.write(
    `With matching.llm, the LLM would be asked about ${asked} of ${FIRST_MESSAGES.length} first messages (${pct(asked, FIRST_MESSAGES.length)})\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
  process.exitCode = 1;
});
