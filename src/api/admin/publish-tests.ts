/**
 * The conversation tests that guard a publish (docs/flows.md, "Conversation tests"): the bot's
 * saved tests run on its draft first, once it is known valid; a failing test, or a run that cannot
 * be made, refuses the publish, unless an owner overrides it, which the audit row keeps. The
 * refusal says whether the caller may override (`details.may_override`), so the console offers
 * it to whom the api allows it. The draft published must be the one tested: a draft saved
 * meanwhile is refused with `BW_ERR_DRAFT_CHANGED`.
 */
import type { Context } from 'koa';
import { isDeepStrictEqual } from 'node:util';
import { BotwireError } from '../../shared/errors.ts';
import type { TestRunResult } from '../../shared/flows/conversation-test-types.ts';
import type { FlowVersionStore } from '../../shared/flows/version-store.ts';
import { runBotTests } from '../conversation-tests/run.ts';
import type { Edge } from '../edge.ts';
import { principalOf } from './principal.ts';

export interface TestGate {
  /** The run's results (none when the bot has no test or the draft is missing). */
  run: TestRunResult | null;
  /** Throws when `flow`, about to be published, is not the draft that was tested. */
  check(flow: unknown): void;
  /** What the publish's audit row keeps of the tests. */
  audit: { tests?: { passed: number; failed: number }; tests_overridden?: string };
}

const isOwner = (ctx: Context): boolean => {
  const p = principalOf(ctx);
  return p.role === 'owner' && (p.within ?? 'owner') === 'owner';
};

/**
 * Runs the bot's tests on its draft. @throws BotwireError `BW_ERR_TESTS_FAILED` (with the run as
 * `details.run`) or `BW_ERR_TESTS_UNAVAILABLE` unless `override` is asked by an owner;
 * `BW_ERR_FORBIDDEN` when someone else asks to override.
 */
export async function testGate(
  ctx: Context,
  edge: Edge,
  versions: FlowVersionStore,
  appId: string,
  override: boolean,
  /** The check a flow about to be published passes (`publishable`). */
  validate: (flow: unknown) => void,
): Promise<TestGate> {
  if (override && !isOwner(ctx))
    throw new BotwireError('BW_ERR_FORBIDDEN', 'only an owner may publish over failing tests');
  const draft = await versions.draft(appId);
  // No draft: publishDraft refuses with BW_ERR_NO_DRAFT.
  if (!draft) return { run: null, check: () => undefined, audit: {} };
  const tested = draft.flow;
  // An invalid draft is refused as such (422 with its problems), not by the tests it fails.
  validate(tested);
  const bot = await edge.directory.byAppId(appId);
  if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
  const mayOverride = isOwner(ctx);
  const check = (flow: unknown) => {
    if (!isDeepStrictEqual(flow, tested))
      throw new BotwireError(
        'BW_ERR_DRAFT_CHANGED',
        'the draft was saved anew while its tests ran; publish again',
      );
  };
  let run: TestRunResult | undefined;
  try {
    run = await runBotTests(edge, bot, tested);
  } catch (error) {
    if (!(error instanceof BotwireError) || error.code !== 'BW_ERR_TESTS_UNAVAILABLE') throw error;
    if (!override)
      throw new BotwireError(error.code, error.message, {
        cause: error,
        details: { may_override: mayOverride },
      });
    return { run: null, check, audit: { tests_overridden: 'the tests could not be run' } };
  }
  if (!run) return { run: null, check, audit: {} };
  const counts = { passed: run.passed, failed: run.failed };
  if (run.failed === 0) return { run, check, audit: { tests: counts } };
  if (override) {
    const failing = run.tests.filter((t) => !t.passed).map((t) => t.name);
    return { run, check, audit: { tests: counts, tests_overridden: failing.join(', ') } };
  }
  const first = run.tests.find((t) => !t.passed)!;
  throw new BotwireError(
    'BW_ERR_TESTS_FAILED',
    `${run.failed} of ${run.tests.length} conversation tests fail on the draft; first: "${first.name}", ${first.failures[0]?.where}: ${first.failures[0]?.message}`,
    { details: { run, may_override: mayOverride } },
  );
}
