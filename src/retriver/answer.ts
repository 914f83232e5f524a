/**
 * The text a knowledge question is answered with. Without an LLM: the best passages, each cited
 * by its source. With an OpenAI-compatible chat completions endpoint configured: the model's
 * answer written from those passages only, followed by a line that says it was written by a
 * model and from which sources. When the model fails or is slow, the passages answer instead.
 */
import { BotwireError } from '../shared/errors.ts';
import { failureCause } from '../shared/failure-cause.ts';
import { citeSource, MARK, type SearchHit } from '../shared/knowledge/search.ts';

/** Passages quoted in an answer without an LLM. */
export const PASSAGES_IN_ANSWER = 3;

export interface LlmSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  fetch: typeof fetch;
}

const plain = (snippet: string): string =>
  snippet.replaceAll(MARK.start, '').replaceAll(MARK.stop, '').replace(/\s+/g, ' ').trim();

/** The answer when nothing matched. */
export function nothingFound(collection: string): string {
  return `I found nothing about that in ${collection}.`;
}

/** The best passages, numbered, each with its source. */
export function passagesAnswer(hits: readonly SearchHit[]): string {
  return hits
    .slice(0, PASSAGES_IN_ANSWER)
    .map(
      (hit, i) =>
        `${i + 1}. ${plain(hit.snippet) || hit.text.slice(0, 300)}\n(${citeSource(hit.source)})`,
    )
    .join('\n\n');
}

const SYSTEM_PROMPT = [
  'You answer questions for the users of a chat bot, using only the numbered passages given.',
  'Cite the passages you use as [1], [2]. If the passages do not contain the answer, say that you do not know.',
  'Answer briefly, in the language of the question.',
].join(' ');

/**
 * Asks the LLM for an answer from `hits`.
 * @throws BotwireError `BW_ERR_UPSTREAM` when the endpoint fails, times out or answers nothing.
 */
export async function llmAnswer(
  llm: LlmSettings,
  question: string,
  hits: readonly SearchHit[],
): Promise<string> {
  const passages = hits
    .map((hit, i) => `[${i + 1}] (${citeSource(hit.source)})\n${hit.text}`)
    .join('\n\n');
  let response: Response;
  try {
    response = await llm.fetch(`${llm.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: llm.model,
        temperature: 0.2,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: `Question: ${question}\n\nPassages:\n${passages}` },
        ],
      }),
      signal: AbortSignal.timeout(llm.timeoutMs),
    });
  } catch (error) {
    throw new BotwireError('BW_ERR_UPSTREAM', `LLM unreachable (${failureCause(error)})`, {
      cause: error,
    });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new BotwireError('BW_ERR_UPSTREAM', `LLM answered HTTP ${response.status}`);
  }
  let content: unknown;
  try {
    const body = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
    content = body.choices?.[0]?.message?.content;
  } catch (error) {
    throw new BotwireError('BW_ERR_UPSTREAM', 'LLM answered with a body that is not JSON', {
      cause: error,
    });
  }
  if (typeof content !== 'string' || content.trim() === '') {
    throw new BotwireError('BW_ERR_UPSTREAM', 'LLM answered without a message');
  }
  const sources = [...new Set(hits.map((hit) => citeSource(hit.source)))].join('; ');
  return `${content.trim()}\n\n(Written by an AI model from: ${sources})`;
}
