/**
 * A bot's conversation tests (docs/flows.md, "Conversation tests"): listed, written as JSON, saved
 * from a test chat, deleted, and run against the draft or a version (as JSON, or as JUnit XML for
 * CI with `?format=junit`). The publish route runs them too (`flow-versions.ts`).
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import type { BotRecord } from '../../shared/bots/types.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { ConversationTest } from '../../shared/flows/conversation-test-types.ts';
import { compilePattern } from '../../shared/flows/pattern.ts';
import { FlowVersionStore } from '../../shared/flows/version-store.ts';
import { hasBody, type ReadBody } from '../body.ts';
import type { Edge } from '../edge.ts';
import { publishable } from '../admin/flow-versions.ts';
import { flowToTry } from '../admin/flow-to-try.ts';
import { principalOf, requireBotAccess } from '../admin/principal.ts';
import { testOfChat } from './from-chat.ts';
import { junitXml } from './junit.ts';
import { NO_TESTS, runBotTests } from './run.ts';
import { TestStore } from './store.ts';

type RouteContext = Context & { params: Record<string, string> };

const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$/;

export interface TestRouteHelpers {
  readBody: ReadBody;
  appIdOf: (ctx: RouteContext) => string;
}

function invalid(path: string, message: string): BotwireError {
  return new BotwireError('BW_ERR_SCHEMA', `${path} ${message}`, {
    details: { problems: [{ path, message }] },
  });
}

/** What the schema cannot say: every `text_matches` compiles in RE2. */
function checkTest(test: ConversationTest): void {
  for (const [i, step] of test.steps.entries()) {
    for (const [n, expectation] of (step.expect ?? []).entries()) {
      if (!('text_matches' in expectation)) continue;
      const compiled = compilePattern(expectation.text_matches);
      if (!compiled.ok)
        throw invalid(`/steps/${i}/expect/${n}/text_matches`, `is not RE2: ${compiled.reason}`);
    }
  }
}

function present(stored: { test: ConversationTest; updated_by: string; updated_at: Date }) {
  return { name: stored.test.name, ...stored };
}

export function conversationTestRoutes(
  router: Router,
  edge: Edge,
  helpers: TestRouteHelpers,
): void {
  const { readBody } = helpers;
  const store = new TestStore(edge.db);
  const versions = new FlowVersionStore(edge.db);
  /** The path's bot, if the caller may reach it. @throws BW_ERR_FORBIDDEN, BW_ERR_UNKNOWN_BOT */
  const botOf = async (ctx: RouteContext): Promise<BotRecord> => {
    const appId = helpers.appIdOf(ctx);
    requireBotAccess(ctx, appId);
    const bot = await edge.directory.byAppId(appId);
    if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    return bot;
  };
  const appIdOf = async (ctx: RouteContext): Promise<string> => (await botOf(ctx)).appId;
  const nameOf = (ctx: RouteContext): string => {
    const name = ctx.params.name ?? '';
    if (!NAME.test(name)) throw new BotwireError('BW_ERR_NOT_FOUND', 'this bot has no such test');
    return name;
  };

  router.get('/v2/bots/:app_id/tests', async (ctx) => {
    const appId = await appIdOf(ctx);
    ctx.body = { items: (await store.list(appId)).map(present) };
  });

  router.put('/v2/bots/:app_id/tests/:name', async (ctx) => {
    const appId = await appIdOf(ctx);
    const name = nameOf(ctx);
    const input = await readBody<ConversationTest>(ctx, 'http/conversation-test');
    if (input.name !== undefined && input.name !== name)
      throw invalid('/name', `must be the name in the path ("${name}")`);
    const test = { ...input, name };
    checkTest(test);
    const replaced = await store.save(appId, test, principalOf(ctx).actor);
    ctx.state.audit = { after: { name, steps: test.steps.length } };
    ctx.status = replaced ? 200 : 201;
    ctx.body = { name, test };
  });

  router.delete('/v2/bots/:app_id/tests/:name', async (ctx) => {
    const appId = await appIdOf(ctx);
    const name = nameOf(ctx);
    if (!(await store.delete(appId, name)))
      throw new BotwireError('BW_ERR_NOT_FOUND', 'this bot has no such test');
    ctx.state.audit = { before: { name } };
    ctx.status = 204;
  });

  router.post('/v2/bots/:app_id/tests/from-chat', async (ctx) => {
    const appId = await appIdOf(ctx);
    const input = await readBody<{ chat_id: string; name: string }>(ctx, 'http/test-from-chat');
    const test = await testOfChat(edge.db, appId, input.chat_id, input.name);
    if (!test)
      throw new BotwireError(
        'BW_ERR_NOT_FOUND',
        'this bot has no test chat of that id with a message in it',
      );
    // A long chat may make a test over the limits a written one keeps: refused the same way.
    const valid = edge.schemas.validate<ConversationTest>('http/conversation-test', test);
    if (!valid.ok)
      throw new BotwireError(
        'BW_ERR_SCHEMA',
        `this chat makes a test over the limits: ${valid.problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
        { details: { problems: valid.problems } },
      );
    const replaced = await store.save(appId, test, principalOf(ctx).actor);
    ctx.state.audit = { after: { name: test.name, steps: test.steps.length, from: input.chat_id } };
    ctx.status = replaced ? 200 : 201;
    ctx.body = { name: test.name, test };
  });

  router.post('/v2/bots/:app_id/tests/run', async (ctx) => {
    const bot = await botOf(ctx);
    const appId = bot.appId;
    const input = hasBody(ctx)
      ? await readBody<{ version?: 'draft' | 'current' | number; names?: string[] }>(
          ctx,
          'http/tests-run',
        )
      : {};
    const format = ctx.query.format;
    if (format !== undefined && format !== 'json' && format !== 'junit')
      throw invalid('/query/format', 'must be json or junit');
    const { flow, source } = await flowToTry(versions, appId, input.version);
    publishable(edge)(flow);
    const run = (await runBotTests(edge, bot, flow, input.names)) ?? NO_TESTS;
    if (format === 'junit') {
      const on = 'draft' in source ? `draft ${source.draft}` : `version ${source.version}`;
      ctx.type = 'application/xml; charset=utf-8';
      ctx.body = await junitXml(`${bot.name} (${on})`, run);
      return;
    }
    ctx.body = { app_id: appId, flow: source, ...run };
  });
}
