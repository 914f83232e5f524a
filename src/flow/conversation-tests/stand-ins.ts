/**
 * A conversation test's stand-ins answer the effects the flow asks for (an HTTP call, a knowledge
 * question, an LLM call) as the real ones would: through the same checks and into the same result
 * event (`http-effect.ts`, `llm-call.ts`), so the flow takes the same path. The first stand-in that
 * fits answers; an effect none fits stops the test with `MissingStandIn`, naming it (a test never
 * reaches a real service).
 */
import type { StandIns } from '../../shared/flows/conversation-test-types.ts';
import type { Effect } from '../engine/types.ts';
import { httpAnswer, refusedBeforeCall } from '../http-effect.ts';
import { settleLlmAnswers } from '../llm-call.ts';
import type { EffectRunners } from '../settle-turn.ts';

/** An effect no stand-in answers: the test fails, naming it. */
export class MissingStandIn extends Error {}

/**
 * Whether `url` is `pattern`, where `*` stands for any characters. Matched piece by piece, in
 * time linear in the URL: a pattern is a builder's text, and this runs beside live turns.
 */
export function urlFits(pattern: string, url: string): boolean {
  const parts = pattern.split('*');
  const head = parts[0]!;
  if (parts.length === 1) return url === head;
  const tail = parts[parts.length - 1]!;
  if (url.length < head.length + tail.length || !url.startsWith(head) || !url.endsWith(tail))
    return false;
  const end = url.length - tail.length;
  let at = head.length;
  for (const middle of parts.slice(1, -1)) {
    const found = url.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

const holds = (text: string, wanted: string | undefined): boolean =>
  wanted === undefined || text.toLowerCase().includes(wanted.toLowerCase());

const promptOf = (effect: Extract<Effect, { kind: 'llm' }>): string =>
  effect.prompt.map((p) => ('text' in p ? p.text : p.data)).join('\n');

export function standInRunners(standIns: StandIns = {}, maxBodyBytes?: number): EffectRunners {
  return {
    http(effect) {
      const refused = refusedBeforeCall(effect, maxBodyBytes);
      if (refused) return Promise.resolve(refused);
      const hit = (standIns.http ?? []).find(
        (s) =>
          (s.method === undefined || s.method.toUpperCase() === effect.method) &&
          urlFits(s.url, effect.url),
      );
      if (!hit) throw new MissingStandIn(`${effect.method} ${effect.url}`);
      return Promise.resolve(httpAnswer(effect.request_id, hit.status ?? 200, hit.body ?? null));
    },
    retrieve(effect) {
      const hit = (standIns.knowledge ?? []).find(
        (s) =>
          (s.collection === undefined || s.collection === effect.collection) &&
          holds(effect.query, s.question_contains),
      );
      if (!hit) throw new MissingStandIn(`knowledge of "${effect.collection}": ${effect.query}`);
      const base = { type: 'effect_result' as const, request_id: effect.request_id };
      return Promise.resolve({ ...base, ok: true, value: hit.answer, found: hit.found ?? true });
    },
    async llm(effect) {
      const prompt = promptOf(effect);
      const hit = (standIns.llm ?? []).find((s) => holds(prompt, s.prompt_contains));
      if (!hit) throw new MissingStandIn(`an LLM call (prompt: ${prompt.slice(0, 80)})`);
      const answer = typeof hit.answer === 'string' ? hit.answer : JSON.stringify(hit.answer);
      // The same answer to a repair: a stand-in that fails its schema fails as the live step would.
      const event = await settleLlmAnswers(effect, () => Promise.resolve(answer));
      // One call made, as live: a failed answer is the flow's to handle, not a refusal.
      const outcome = event.ok ? ('ok' as const) : (event.code ?? 'BW_ERR_FLOW_LLM_UNAVAILABLE');
      return {
        event,
        tokens: 0,
        calls: [{ model: effect.model ?? 'stand-in', tokens: 0, ms: 0, outcome }],
      };
    },
  };
}
