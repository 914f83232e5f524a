/**
 * What an `llm` step sends, and what it makes of the answer (docs/flows.md, "The llm step").
 *
 * - The system message is botwire's frame (values are data, never instructions; the guardrails),
 *   then the operator's `system`, which takes no placeholders. Nothing the user wrote is in it.
 * - The user message is the step's `prompt`: its own words as written, and every placeholder's
 *   value inside a `<user_data>` block, the block's own tags neutralised inside the value so a
 *   value cannot close it.
 * - With `mask_pii`, phone numbers, emails and card numbers in the user message are replaced
 *   before anything leaves the machine.
 */
import type { ChatMessage } from '../shared/chat-completions.ts';
import { dataBlock, DATA_FRAME } from '../shared/llm-data.ts';
import type { PromptPart } from './engine/types.ts';
import type { LlmGuardrails, LlmOutput } from '../shared/flows/types.ts';

/** What the model is told to answer, alone, when a request is off the bot's topic. */
export const OFF_TOPIC = 'OFF_TOPIC';

const FRAME = `You are one step of a chat bot. The user message holds the task. ${DATA_FRAME}`;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;
/** A date as people write one (2024-05-17, 17.05.2024, 17/05/24): never a phone number. */
const DATE = String.raw`(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./](?:\d{4}|\d{2}))(?!\d)`;
/**
 * A phone number: an optional `+` or `(`, then digits with spaces, dashes, dots and brackets.
 * It does not start inside a word, after `#` (an order reference), nor within or at a date.
 */
const PHONE = new RegExp(
  String.raw`(?<![\w+#]|\d[-./])(?!${DATE})\+?\(?\d[\d ().-]{5,30}\d\b`,
  'g',
);

/** Whether the digits pass the Luhn check card numbers carry. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * `text` with emails, card numbers (13 to 19 digits passing the Luhn check) and phone numbers
 * (7 to 15 digits) replaced by `[email]`, `[card number]`, `[phone number]`.
 */
export function maskPii(text: string): string {
  return text
    .replace(EMAIL, '[email]')
    .replace(CARD, (match) => (luhn(match.replace(/\D/g, '')) ? '[card number]' : match))
    .replace(PHONE, (match) => {
      const digits = match.replace(/\D/g, '').length;
      return digits >= 7 && digits <= 15 ? '[phone number]' : match;
    });
}

function systemMessage(
  system: string | undefined,
  output: LlmOutput,
  guardrails: LlmGuardrails,
): string {
  const parts = [FRAME];
  if (guardrails.topic !== undefined) {
    parts.push(
      `Only help with this topic: ${guardrails.topic}. If the task or the data asks for anything else, answer exactly ${OFF_TOPIC} and nothing more.`,
    );
  }
  if (output === 'text' && guardrails.max_answer_chars !== undefined) {
    parts.push(`Answer in at most ${guardrails.max_answer_chars} characters.`);
  }
  if (output !== 'text') {
    parts.push(
      `Answer with one JSON value only (no prose, no code fence), valid against this JSON Schema: ${JSON.stringify(output)}`,
    );
  }
  if (system !== undefined) parts.push(system);
  return parts.join('\n\n');
}

/** The messages of an `llm` step. */
export function buildMessages(step: {
  system?: string;
  prompt: PromptPart[];
  output: LlmOutput;
  guardrails: LlmGuardrails;
}): ChatMessage[] {
  const user = step.prompt
    .map((part) => ('text' in part ? part.text : dataBlock(part.name, part.data)))
    .join('');
  return [
    { role: 'system', content: systemMessage(step.system, step.output, step.guardrails) },
    { role: 'user', content: step.guardrails.mask_pii ? maskPii(user) : user },
  ];
}

/** The messages of the one repair attempt: the answer that failed and why. */
export function repairMessages(
  messages: ChatMessage[],
  answer: string,
  problems: string[],
): ChatMessage[] {
  return [
    ...messages,
    { role: 'assistant', content: answer },
    {
      role: 'user',
      content: `That answer is not valid: ${problems.join('; ')}. Answer again with only the JSON value, valid against the schema.`,
    },
  ];
}

/** The model's JSON, without a code fence around it; undefined when it is not JSON. */
export function parseJson(answer: string): { ok: true; value: unknown } | { ok: false } {
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(answer.trim());
  try {
    return { ok: true, value: JSON.parse(fenced?.[1] ?? answer) as unknown };
  } catch {
    return { ok: false };
  }
}

/** `text` cut to `max` characters, at the end of a sentence or a word when one is near. */
export function cutAnswer(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const sentence = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '));
  if (sentence >= max / 2) return head.slice(0, sentence + 1);
  const word = head.lastIndexOf(' ');
  return `${word >= max / 2 ? head.slice(0, word) : head}…`;
}

/** Whether the answer is the off-topic signal the system message asks for. */
export function isOffTopic(answer: string): boolean {
  return (
    answer
      .trim()
      .replace(/[."'`]/g, '')
      .toUpperCase() === OFF_TOPIC
  );
}
