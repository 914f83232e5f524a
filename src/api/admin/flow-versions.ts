/**
 * Flow drafts, versions, publishing, rollback, the impact of a candidate flow and the validation
 * route (docs/flows.md, "Versions"). Problems and warnings point into the flow itself
 * (`/states/ask/wait/store`). Publishing and rollback reach every process as a bot change does:
 * `bots.flow` changes and the directory is notified, so new turns use the new current version.
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { botChanged } from './bot-changed.ts';
import { BotwireError } from '../../shared/errors.ts';
import { flowChanges, statesOf } from '../../shared/flows/flow-changes.ts';
import { validateFlow, type FlowProblem } from '../../shared/flows/validate-flow.ts';
import {
  FlowVersionStore,
  type FlowDraft,
  type FlowVersion,
} from '../../shared/flows/version-store.ts';
import { LlmUsage } from '../../shared/flows/llm-usage.ts';
import { dayOf } from '../../shared/utc-day.ts';
import type { Flow } from '../../shared/flows/types.ts';
import { principalOf } from './principal.ts';
import { testGate } from './publish-tests.ts';
import type { Edge } from '../edge.ts';
import { hasBody, readJson, type ReadBody } from '../body.ts';

type RouteContext = Context & { params: Record<string, string> };

/** What the admin router lends these routes: its body reader and its parameter checks. */
export interface AdminHelpers {
  readBody: ReadBody;
  appIdOf: (ctx: RouteContext) => string;
  limitOf: (ctx: Context) => number;
}

const VERSION = /^[1-9]\d{0,8}$/;

function versionOf(ctx: RouteContext): number {
  const raw = ctx.params.version ?? '';
  if (!VERSION.test(raw))
    throw new BotwireError('BW_ERR_NOT_FOUND', 'no flow version has this number');
  return Number(raw);
}

function queryProblem(path: string, message: string): BotwireError {
  return new BotwireError('BW_ERR_SCHEMA', `${path.slice(7)} ${message}`, {
    details: { problems: [{ path, message }] },
  });
}

/** Checks a flow that is about to become current; refuses it with 422 and its problems. */
export function publishable(edge: Edge): (flow: unknown) => void {
  return (flow) => {
    const result = validateFlow(edge.schemas, flow);
    if (result.ok) return;
    const problems = result.problems;
    throw new BotwireError(
      'BW_ERR_FLOW_INVALID',
      `the flow is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
      { status: 422, details: { problems, warnings: result.warnings } },
    );
  };
}

function checked(edge: Edge, flow: unknown): { problems: FlowProblem[]; warnings: FlowProblem[] } {
  const result = validateFlow(edge.schemas, flow);
  return { problems: result.ok ? [] : result.problems, warnings: result.warnings };
}

function presentVersion(version: FlowVersion, current: number | undefined) {
  return {
    version: version.version,
    flow: version.flow,
    author: version.author,
    created_at: version.created_at,
    note: version.note,
    current: version.version === current,
  };
}

function presentDraft(edge: Edge, draft: FlowDraft) {
  return {
    flow: draft.flow,
    author: draft.author,
    revision: draft.revision,
    updated_at: draft.updated_at,
    ...checked(edge, draft.flow),
  };
}

export function flowVersionRoutes(router: Router, edge: Edge, helpers: AdminHelpers): void {
  const versions = new FlowVersionStore(edge.db);
  const { readBody, appIdOf, limitOf } = helpers;

  /** The bot's current version number; 404 when the bot does not exist. */
  const currentOf = async (appId: string): Promise<number> => {
    const current = await versions.currentNumber(appId);
    if (current === undefined)
      throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    return current;
  };

  router.post('/v2/flows/validate', async (ctx) => {
    // The flow is the answer's subject, not a body to refuse: any JSON gets problems, not a 4xx.
    const { json } = await readJson(ctx, edge.bodyLimitBytes, edge.bodyTimeoutMs);
    const { problems, warnings } = checked(edge, json);
    ctx.body = { ok: problems.length === 0, problems, warnings };
  });

  router.get('/v2/bots/:app_id/flow', async (ctx) => {
    const appId = appIdOf(ctx);
    const [published, draft] = await Promise.all([versions.current(appId), versions.draft(appId)]);
    if (!published) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    const { version, flow, author, created_at, note } = published;
    ctx.body = {
      published: { version, flow, author, created_at, note },
      draft: draft ? presentDraft(edge, draft) : null,
    };
  });

  router.put('/v2/bots/:app_id/flow/draft', async (ctx) => {
    const appId = appIdOf(ctx);
    const input = await readBody<{ flow: Record<string, unknown> }>(ctx, 'http/flow-draft');
    const draft = await versions.saveDraft(appId, input.flow, principalOf(ctx).actor);
    if (!draft) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    ctx.state.audit = { after: { states: Object.keys(statesOf(draft.flow)) } };
    ctx.body = presentDraft(edge, draft);
  });

  router.delete('/v2/bots/:app_id/flow/draft', async (ctx) => {
    const appId = appIdOf(ctx);
    await currentOf(appId);
    // Idempotent: the draft is gone either way.
    await versions.deleteDraft(appId);
    ctx.status = 204;
  });

  router.post('/v2/bots/:app_id/flow/publish', async (ctx) => {
    const appId = appIdOf(ctx);
    // The body is optional: a publish without a note may send none.
    const input = hasBody(ctx)
      ? await readBody<{ note?: string; override_tests?: boolean }>(ctx, 'http/publish-flow')
      : {};
    const previous = await versions.currentNumber(appId);
    const check = publishable(edge);
    const gate = await testGate(ctx, edge, versions, appId, input.override_tests === true, check);
    const version = await versions.publishDraft(appId, {
      author: principalOf(ctx).actor,
      note: input.note ?? null,
      check: (flow) => {
        check(flow);
        gate.check(flow);
      },
    });
    await botChanged(edge, appId, 'flow-published');
    ctx.state.audit = {
      before: { version: previous ?? null },
      after: { version: version.version, note: version.note, ...gate.audit },
    };
    ctx.status = 201;
    ctx.body = {
      ...presentVersion(version, version.version),
      warnings: checked(edge, version.flow).warnings,
      tests: gate.run,
    };
  });

  router.get('/v2/bots/:app_id/flow/versions', async (ctx) => {
    const appId = appIdOf(ctx);
    const limit = limitOf(ctx);
    const after = ctx.query.after;
    if (after !== undefined && after !== '' && (typeof after !== 'string' || !VERSION.test(after)))
      throw queryProblem('/query/after', 'must be the next_after of an earlier page');
    const current = await currentOf(appId);
    const rows = await versions.list(appId, limit, after ? Number(after) : undefined);
    const items = rows.slice(0, limit);
    const byNumber = new Map(rows.map((row) => [row.version, row]));
    ctx.body = {
      items: items.map((row) => {
        const { flow, ...version } = presentVersion(row, current);
        return { ...version, changes: flowChanges(byNumber.get(row.version - 1)?.flow, flow) };
      }),
      next_after: rows.length > limit ? String(items[items.length - 1]!.version) : null,
    };
  });

  router.get('/v2/bots/:app_id/flow/versions/:version', async (ctx) => {
    const appId = appIdOf(ctx);
    const current = await currentOf(appId);
    const version = await versions.get(appId, versionOf(ctx));
    if (!version) throw new BotwireError('BW_ERR_NOT_FOUND', 'this bot has no such flow version');
    ctx.body = presentVersion(version, current);
  });

  router.post('/v2/bots/:app_id/flow/versions/:version/publish', async (ctx) => {
    const appId = appIdOf(ctx);
    const previous = await versions.currentNumber(appId);
    const version = await versions.rollback(appId, versionOf(ctx), publishable(edge));
    await botChanged(edge, appId, 'flow-published');
    ctx.state.audit = {
      before: { version: previous ?? null },
      after: { version: version.version },
    };
    ctx.body = {
      ...presentVersion(version, version.version),
      warnings: checked(edge, version.flow).warnings,
    };
  });

  router.get('/v2/bots/:app_id/flow/llm-usage', async (ctx) => {
    const appId = appIdOf(ctx);
    const published = await versions.current(appId);
    if (!published) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    const now = new Date();
    const own = (published.flow as unknown as Flow | null)?.llm?.daily_tokens;
    ctx.body = {
      day: dayOf(now),
      tokens: await new LlmUsage(edge.redis, edge.prefix).used(appId, now),
      daily_budget: Math.min(edge.llmDailyTokens, own ?? edge.llmDailyTokens),
    };
  });

  router.get('/v2/bots/:app_id/flow/impact', async (ctx) => {
    const appId = appIdOf(ctx);
    await currentOf(appId);
    const wanted = ctx.query.version;
    let flow: unknown;
    if (wanted === 'draft') {
      const draft = await versions.draft(appId);
      if (!draft) throw new BotwireError('BW_ERR_NO_DRAFT', 'this bot has no draft');
      flow = draft.flow;
    } else if (typeof wanted === 'string' && VERSION.test(wanted)) {
      const version = await versions.get(appId, Number(wanted));
      if (!version) throw new BotwireError('BW_ERR_NOT_FOUND', 'this bot has no such flow version');
      flow = version.flow;
    } else {
      throw queryProblem('/query/version', 'must be a version number or "draft"');
    }
    const removed = await versions.waitingOutside(appId, Object.keys(statesOf(flow)));
    ctx.body = {
      removed_states: removed,
      conversations: removed.reduce((sum, r) => sum + r.conversations, 0),
    };
  });
}
