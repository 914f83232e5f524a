import { Redis, type RedisOptions } from 'ioredis';

export type { Redis, RedisOptions } from 'ioredis';

/**
 * Opens a Redis connection.
 *
 * `failFast` is for request paths (the HTTP edge): commands fail at once while Redis is down
 * instead of queueing, so a caller can answer 503 and let the platform retry. Workers keep the
 * default: commands wait for the reconnect.
 */
export function createRedis(
  url: string,
  options: { failFast?: boolean; name?: string } & RedisOptions = {},
): Redis {
  const { failFast = false, name, ...rest } = options;
  return new Redis(url, {
    connectionName: name,
    ...(failFast ? { enableOfflineQueue: false, maxRetriesPerRequest: 1 } : {}),
    ...rest,
  });
}
