// Slack Socket Mode (https://api.slack.com/apis/socket-mode) on the stand-in's server: a WebSocket
// endpoint that greets each client with `hello` and carries Slack's envelopes (`events_api`,
// `interactive`, each with an `envelope_id` the app acknowledges by sending it back).
import type { LoopbackServer } from '@parley/testing/loopback';
import { startLoopbackSocket } from '@parley/testing/loopback-ws';
import { APP_ID } from './standin-payloads.js';

export interface StandInSocket {
  /** A URL for a new connection (what apps.connections.open answers). */
  open(): string;
  /** Whether an app is connected now. */
  connected(): boolean;
  /** Sends one envelope; resolves once the app acknowledged it. */
  envelope(type: 'events_api' | 'interactive', payload: object, retry: number): Promise<void>;
}

export function createStandInSocket(server: LoopbackServer): StandInSocket {
  const tickets = new Set<string>();
  let lastTicket = 0;
  let lastEnvelope = 0;
  const socket = startLoopbackSocket(server, {
    path: '/link/',
    accept: (upgrade) => tickets.delete(upgrade.query['ticket'] ?? ''),
    greeting: () => ({
      type: 'hello',
      num_connections: 1,
      debug_info: { host: 'applink-standin', build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: APP_ID },
    }),
  });
  return {
    open() {
      const ticket = `ticket-${++lastTicket}`;
      tickets.add(ticket);
      return `${socket.url}?ticket=${ticket}&app_id=${APP_ID}`;
    },
    connected: () => socket.connections > 0,
    async envelope(type, payload, retry) {
      const id = `envelope-${++lastEnvelope}`;
      const acked = socket.nextFrame((frame) => (frame as { envelope_id?: unknown }).envelope_id === id);
      const retried =
        type === 'events_api' ? { retry_attempt: retry, retry_reason: retry > 0 ? 'timeout' : '' } : {};
      socket.send({ envelope_id: id, payload, type, accepts_response_payload: false, ...retried });
      await acked;
    },
  };
}
