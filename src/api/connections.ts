/**
 * Connection caps of the edge's HTTP server: at most `maxTotal` open connections (node's
 * `server.maxConnections`) and at most `maxPerAddress` from one remote address. A connection past
 * either cap is destroyed as it is accepted, before a byte of it is read, so one noisy host
 * cannot take the file descriptors that Postgres, Redis and the platforms' callbacks need.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Most open connections in all (count). */
  maxTotal: number;
  /** Most open connections from one remote address (count; 0 for no cap). */
  maxPerAddress: number;
  /** Called for each connection refused by the per-address cap (for metrics and logs). */
  onRefused?: (address: string) => void;
}

/** Applies the caps to `server`; returns the open connections per address, for inspection. */
export function limitConnections(server: Server, limits: ConnectionLimits): Map<string, number> {
  server.maxConnections = limits.maxTotal;
  const open = new Map<string, number>();
  if (limits.maxPerAddress <= 0) return open;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= limits.maxPerAddress) {
      socket.destroy();
      limits.onRefused?.(address);
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return open;
}
