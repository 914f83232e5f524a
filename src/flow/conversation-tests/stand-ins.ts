/**
 * A conversation test's stand-ins answer the effects the flow asks for (an HTTP call, a knowledge
 * question, an LLM call) as the real ones would: the same result event, so the flow takes the
 * same path. The first stand-in that fits answers; an effect none fits fails the test, naming it
 * (a test never reaches a real service).
 */
import type { StandIns } from '../../shared/flows/conversation-test-types.ts';
import type { Effect, EffectResultEvent } from '../engine/types.ts';

/** The stand-in's result, or why there is none. */
export type StandInAnswer = { ok: true; event: EffectResultEvent } | { ok: false; missing: string };

/** Whether `url` is `pattern`, where `*` stands for any characters. */
export function urlFits(pattern: string, url: string): boolean {
  const parts = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 's').test(url);
}

const holds = (text: string, wanted: string | undefined): boolean =>
  wanted === undefined || text.toLowerCase().includes(wanted.toLowerCase());

export function answerEffect(effect: Effect, standIns: StandIns = {}): StandInAnswer {
  const base = { type: 'effect_result' as const, request_id: effect.request_id };
  switch (effect.kind) {
    case 'http': {
      if (effect.refused !== undefined) {
        // Refused before any call, as the flow component refuses it.
        return {
          ok: true,
          event: { ...base, ok: false, code: 'BW_ERR_FLOW_HTTP_REFUSED', error: effect.refused },
        };
      }
      const hit = (standIns.http ?? []).find(
        (s) =>
          (s.method === undefined || s.method.toUpperCase() === effect.method) &&
          urlFits(s.url, effect.url),
      );
      if (!hit) return { ok: false, missing: `${effect.method} ${effect.url}` };
      const status = hit.status ?? 200;
      const value = { status, body: hit.body ?? null };
      return {
        ok: true,
        event:
          status >= 200 && status < 300
            ? { ...base, ok: true, value }
            : { ...base, ok: false, value, error: `HTTP ${status}` },
      };
    }
    case 'retrieve': {
      const hit = (standIns.knowledge ?? []).find(
        (s) =>
          (s.collection === undefined || s.collection === effect.collection) &&
          holds(effect.query, s.question_contains),
      );
      if (!hit)
        return { ok: false, missing: `knowledge of "${effect.collection}": ${effect.query}` };
      return {
        ok: true,
        event: { ...base, ok: true, value: hit.answer, found: hit.found ?? true },
      };
    }
    case 'llm': {
      const prompt = effect.prompt.map((p) => ('text' in p ? p.text : p.data)).join('\n');
      const hit = (standIns.llm ?? []).find((s) => holds(prompt, s.prompt_contains));
      if (!hit) return { ok: false, missing: `an LLM call (prompt: ${prompt.slice(0, 80)})` };
      return { ok: true, event: { ...base, ok: true, value: hit.answer } };
    }
  }
}
