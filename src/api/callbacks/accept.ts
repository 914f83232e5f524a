/**
 * The common tail of every platform callback: validate, keep what is authentic but invalid in the
 * quarantine stream, publish once per platform id, answer.
 */
import { BotwireError } from '../../shared/errors.ts';
import { describeProblems } from '../../shared/schemas.ts';
import type { OnceMessage } from '../../shared/bus/producer.ts';
import type { Edge } from '../edge.ts';

/** Approximate length kept of the quarantine stream (entries). */
const QUARANTINE_MAXLEN = 10_000;

/** The stream holding authentic payloads that failed their schema, for inspection. */
export function quarantineKey(prefix: string): string {
  return `${prefix}:{quarantine}`;
}

/**
 * Validates a callback body. When it fails and the sender was authenticated, the raw payload is
 * kept in the quarantine stream before the 400 goes out: the platform will not send it again.
 */
export async function validateCallback<T>(
  edge: Edge,
  schema: string,
  body: { raw: Buffer; json: unknown },
  source: { platform: string; authentic: boolean; appId?: string },
): Promise<T> {
  const result = edge.schemas.validate<T>(schema, body.json);
  if (result.ok) return result.value;
  const reason = describeProblems(result.problems);
  if (source.authentic) {
    await edge.redis
      .xadd(
        quarantineKey(edge.prefix),
        'MAXLEN',
        '~',
        QUARANTINE_MAXLEN,
        '*',
        'platform',
        source.platform,
        'app_id',
        source.appId ?? '',
        'reason',
        reason,
        'received_at',
        new Date().toISOString(),
        'body',
        body.raw,
      )
      .catch((error: unknown) => {
        throw new BotwireError('BW_ERR_UNAVAILABLE', 'could not quarantine the payload', {
          cause: error,
        });
      });
  }
  throw new BotwireError('BW_ERR_SCHEMA', `the payload fails its schema: ${reason}`, {
    details: { problems: result.problems },
  });
}

/** Publishes channel_in messages once each; returns how many were new. */
export async function publishOnce(edge: Edge, messages: readonly OnceMessage[]): Promise<number> {
  const ids = await edge.producer.publishOnce('channel', messages, edge.dedupeTtlS);
  return ids.filter((id) => id !== null).length;
}
