// The CEO asks the secretary for today's summary with a blocking send (@parley/peers, the
// reference protocol's `sessions_send`): both are depth-0 agents, so the CEO waits for the reply.
// The strategist, a spawned run (depth 1), may not send: its attempt is refused as data, and the
// pipeline's steps hand off by spawn instead (agent-collaboration §4.2, "CEO 問秘書「今日摘要」→ send").
import type { ManualClock } from '@parley/core';
import type { CorrelateMessage } from '@parley/correlate';
import type { Topology } from '@parley/envelope';
import { createPeers, type Peers } from '@parley/peers';
import { CEO, STRATEGIST } from './host.js';
import type { Transcript } from './transcript.js';

export const SECRETARY = 'secretary';

/** Today's summary as the secretary has it. */
const SUMMARY = {
  meetings: 3,
  deadlines: ['FOMC minutes 18:00 UTC'],
  note: 'BTC and ETH funding turned positive',
};

export interface Secretary {
  /** The CEO asks; resolves once the reply (or a refusal) is in, logging both. */
  askForSummary(): Promise<void>;
  /** The strategist (depth 1) tries the same send: refused, logged. */
  strategistTriesToSend(): Promise<void>;
  close(): void;
}

export function createSecretary(topology: Topology, clock: ManualClock, transcript: Transcript): Secretary {
  const log = transcript.log;
  topology.register({ id: SECRETARY, role: SECRETARY });
  const endpoints = new Map<string, Peers>();
  // The transport: a microtask; a host would carry these as envelopes over its bus.
  const send = (message: CorrelateMessage): void =>
    void queueMicrotask(() => void endpoints.get(message.to)?.receive(message));
  let ids = 0;
  const endpoint = (self: string): Peers =>
    createPeers({ self, topology, send, clock, generateId: () => `send_${++ids}` });
  const ceo = endpoint(CEO);
  const secretary = endpoint(SECRETARY);
  const strategist = endpoint(STRATEGIST);
  endpoints.set(CEO, ceo).set(SECRETARY, secretary).set(STRATEGIST, strategist);
  secretary.onMessage(() => ({ reply: SUMMARY }));
  return {
    async askForSummary() {
      const result = await ceo.send({ to: SECRETARY, message: '今日摘要?' });
      const answer = result.ok ? `reply ${JSON.stringify(result.reply)}` : `refused: ${result.code}`;
      log(`${CEO} ⇄ ${SECRETARY}  sessions_send (blocking): 今日摘要? → ${answer}`);
    },
    async strategistTriesToSend() {
      const result = await strategist.send({ to: SECRETARY, message: 'market hours?' });
      log(
        result.ok
          ? `${STRATEGIST} → ${SECRETARY} sessions_send: answered`
          : `  ⊘ ${STRATEGIST} → ${SECRETARY} sessions_send refused as it should be: ${result.code} (a spawned run announces upward instead)`,
      );
    },
    close() {
      for (const peers of endpoints.values()) void peers.close();
    },
  };
}
