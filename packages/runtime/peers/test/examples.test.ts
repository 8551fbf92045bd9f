// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/peers, compiled and run; each console.log is an assertion here.
import { isParleyError } from '@parley/core';
import type { CorrelateMessage } from '@parley/correlate';
import { createTopology } from '@parley/envelope';
import { describe, expect, it } from 'vitest';
import {
  type ConversationView,
  createPeers,
  DEFAULT_CONVERSATION_MS,
  DEFAULT_MAX_CONVERSATIONS,
  DEFAULT_MAX_MESSAGE_CHARS,
  DEFAULT_MAX_CONVERSATION_ROUNDS,
  DEFAULT_SEND_TIMEOUT_MS,
  type IncomingSend,
  MAX_ROUNDS_CAP,
  PEER_REFUSAL_CODES,
  PEERS_ERROR_CODES,
  type PeerAnswer,
  type PeerRefusal,
  type PeerRefusalCode,
  type Peers,
  PeersError,
  type PeersErrorCode,
  type PeersEvents,
  type PeerSendOptions,
  type PeerSendResult,
  type PeersOptions,
  peerSendProtocol,
} from '../src/index.js';

describe('@parley/peers examples', () => {
  it('createPeers', async () => {
    const topology = createTopology();
    topology.register({ id: 'ceo' });
    topology.register({ id: 'secretary' });
    const endpoints = new Map<string, Peers>();
    const send = (m: CorrelateMessage): void =>
      void queueMicrotask(() => void endpoints.get(m.to)?.receive(m));
    const ceo = createPeers({ self: 'ceo', topology, send });
    const secretary = createPeers({ self: 'secretary', topology, send });
    endpoints.set('ceo', ceo).set('secretary', secretary);
    secretary.onMessage(() => ({ reply: { summary: '3 meetings, 1 deadline' } }));

    const result = await ceo.send({ to: 'secretary', message: 'today summary?' });
    expect(result.ok && result.reply).toEqual({ summary: '3 meetings, 1 deadline' });
    expect(result.ok && result.roundsLeft).toBe(4);
    ceo.close();
    secretary.close();
  });

  it('peerSendProtocol', () => {
    expect(peerSendProtocol.name).toBe('sessions_send');
    expect(peerSendProtocol.decide({ refused: 'round_limit' })).toEqual({
      approve: false,
      reason: 'round_limit',
    });
  });

  it('constants', () => {
    expect([DEFAULT_MAX_CONVERSATION_ROUNDS, MAX_ROUNDS_CAP, DEFAULT_SEND_TIMEOUT_MS]).toEqual([
      5, 20, 30000,
    ]);
    expect([DEFAULT_CONVERSATION_MS, DEFAULT_MAX_CONVERSATIONS, DEFAULT_MAX_MESSAGE_CHARS]).toEqual([
      600000, 1000, 16000,
    ]);
    expect(PEERS_ERROR_CODES.includes('invalid_argument')).toBe(true);
    expect(PEER_REFUSAL_CODES.includes('round_limit')).toBe(true);
  });

  it('PeersError', () => {
    const err = new PeersError('invalid_argument', 'maxRounds must be 1 to 20');
    expect(isParleyError(err, 'invalid_argument')).toBe(true);
  });

  it('types', () => {
    const options: PeersOptions = { self: 'ceo', topology: createTopology(), send: () => {}, maxRounds: 3 };
    const send: PeerSendOptions = { to: 'secretary', message: { ask: 'today summary' }, timeoutMs: 10_000 };
    const refusal: PeerRefusal = {
      ok: false,
      code: 'round_limit',
      message: 'Conversation "c1" has used its 5 rounds',
    };
    const show = (r: PeerSendResult): string =>
      r.ok ? `round ${r.round}: ${JSON.stringify(r.reply)}` : r.code;
    const line = (s: IncomingSend): string => `${s.from} (round ${s.round}): ${JSON.stringify(s.message)}`;
    const answer: PeerAnswer = { reply: { summary: '3 meetings' }, end: true };
    const onRefused = (e: PeersEvents['refused']): void => console.log(e.direction, e.code);
    const left = (c: ConversationView): number => c.maxRounds - c.rounds;
    const code: PeerRefusalCode = 'timeout';
    const errorCode: PeersErrorCode = 'invalid_argument';
    expect(show(refusal)).toBe('round_limit');
    const peers: Peers = createPeers({ self: 'ceo', topology: createTopology(), send: () => {} });
    peers.close();
  });
});
