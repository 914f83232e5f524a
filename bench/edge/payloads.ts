/**
 * Callback bodies for the edge bench. The edge publishes a WhatsApp message once per message id
 * and a Telegram update once per update_id, so every request gets a fresh id; ids have a fixed
 * width so every body of a scenario has the same size, baseline included.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** One request of a scenario: what autocannon sends. */
export interface BenchRequest {
  body: string;
  headers: Record<string, string>;
}

export type RequestFactory = () => BenchRequest;

/** The WhatsApp Cloud API text-message webhook body, with message id `id`. */
export function whatsappBody(phoneNumberId: string, id: string): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: 'Ana' }, wa_id: '15550002222' }],
              messages: [
                {
                  from: '15550002222',
                  id,
                  timestamp: '1700000000',
                  type: 'text',
                  text: { body: 'hola 👋 ¿qué tal?' },
                },
              ],
            },
          },
        ],
      },
    ],
  });
}

/** A Telegram text-message update with `updateId`. */
export function telegramBody(updateId: number): string {
  return JSON.stringify({
    update_id: updateId,
    message: {
      message_id: 1,
      date: 1700000000,
      chat: { id: 42, type: 'private' },
      from: { id: 42, first_name: 'Ana' },
      text: 'hello',
    },
  });
}

/**
 * Signed WhatsApp requests, each with a new `wamid.<run nonce><counter>` id.
 * @param appSecret the channel's app secret: `X-Hub-Signature-256` is its HMAC-SHA256 of the body.
 */
export function whatsappRequests(phoneNumberId: string, appSecret: string): RequestFactory {
  const nonce = randomBytes(8).toString('hex');
  let counter = 0;
  return () => {
    const body = whatsappBody(
      phoneNumberId,
      `wamid.${nonce}${String(counter++).padStart(12, '0')}`,
    );
    const signature = createHmac('sha256', appSecret).update(body).digest('hex');
    return {
      body,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${signature}` },
    };
  };
}

/** Telegram requests carrying the channel's secret token, each with a new update_id. */
export function telegramRequests(secretToken: string): RequestFactory {
  // Ten digits whatever the count, so every body has the same size.
  let updateId = 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);
  return () => ({
    body: telegramBody(updateId++),
    headers: {
      'content-type': 'application/json',
      'x-telegram-bot-api-secret-token': secretToken,
    },
  });
}
