import { assertTimeoutMs, createEmitter, createMemoryStore, generateId, systemClock } from '@parley/core';
import { createCorrelator, type Reply } from '@parley/correlate';
import { type Conversations, createConversations } from './conversations.js';
import { PeersError } from './errors.js';
import { createLiveConversations, type LiveConversations } from './live.js';
import {
  DEFAULT_CONVERSATION_MS,
  DEFAULT_MAX_CONVERSATIONS,
  DEFAULT_MAX_MESSAGE_CHARS,
  DEFAULT_MAX_CONVERSATION_ROUNDS,
  DEFAULT_SEND_TIMEOUT_MS,
  ID_PATTERN,
  MAX_ROUNDS_CAP,
  type PeerSendAnswer,
  peerSendProtocol,
} from './protocol.js';
import { createResponder } from './responder.js';
import type { SendDecision, SendInput } from './rules.js';
import { type PeerEndpoint, sendToPeer } from './send.js';
import type { Peers, PeerSendOptions, PeersEvents, PeersOptions } from './types.js';

/**
 * Creates one agent's endpoint for blocking sends between depth-0 peers (the reference protocol's
 * `sessions_send`): the sender blocks for the reply up to a timeout, a conversation has at most
 * `maxRounds` rounds, and everything that may not happen is refused as data, never thrown.
 *
 * Use it for "I need an answer now to go on" between two independent agents (the CEO asking the
 * secretary for today's summary); spawn for everything else. Each round is one `@parley/correlate`
 * request, so deadlines are absolute and checked when a reply arrives; with a `store`, the round
 * count and pending rounds survive a restart (`restore()`), so restarting never buys extra rounds.
 *
 * @throws PeersError `invalid_argument` for a bad `self`, topology, `send` or limit; CoreError
 * `invalid_timeout` for a bad `timeoutMs` or `conversationMs`.
 * @example
 * ```ts
 * import { createTopology } from '@parley/envelope';
 * import { createPeers, type Peers } from '@parley/peers';
 * import type { CorrelateMessage } from '@parley/correlate';
 *
 * const topology = createTopology();
 * topology.register({ id: 'ceo' });
 * topology.register({ id: 'secretary' });
 * const endpoints = new Map<string, Peers>();
 * const send = (m: CorrelateMessage): void => void queueMicrotask(() => void endpoints.get(m.to)?.receive(m));
 * const ceo = createPeers({ self: 'ceo', topology, send });
 * const secretary = createPeers({ self: 'secretary', topology, send });
 * endpoints.set('ceo', ceo).set('secretary', secretary);
 * secretary.onMessage(() => ({ reply: { summary: '3 meetings, 1 deadline' } }));
 *
 * const result = await ceo.send({ to: 'secretary', message: 'today summary?' });
 * console.log(result.ok && result.reply); // { summary: '3 meetings, 1 deadline' }
 * console.log(result.ok && result.roundsLeft); // 4
 * ceo.close();
 * secretary.close();
 * ```
 */
export function createPeers(options: PeersOptions): Peers {
  const { self, topology } = checkOptions(options);
  const clock = options.clock ?? systemClock;
  const nextId = options.generateId ?? generateId;
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_CONVERSATION_ROUNDS;
  const defaultTimeoutMs = assertTimeoutMs(options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS, 'timeoutMs');
  const conversationMs = assertTimeoutMs(options.conversationMs ?? DEFAULT_CONVERSATION_MS, 'conversationMs');
  const maxConversations = options.maxConversations ?? DEFAULT_MAX_CONVERSATIONS;
  const maxChars = options.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
  const store = options.store ?? createMemoryStore({ clock });
  const prefix = options.keyPrefix ?? `peers:${self}:`;
  const conversations = createConversations(store, clock, { maxRounds, conversationMs });
  const events = createEmitter<PeersEvents>();
  /** Conversations this instance opened and has not seen expire: the `maxConversations` bound. */
  const live = createLiveConversations();
  let requestId = '';
  let closed = false;
  const correlator = createCorrelator({
    self,
    protocols: [peerSendProtocol],
    send: options.send,
    clock,
    generateId: () => requestId, // set just before each request: `<conversation>#<round>`
    ...(options.maxPending === undefined ? {} : { maxPending: options.maxPending }),
    ...(options.store === undefined ? {} : { store: options.store, keyPrefix: `${prefix}req:` }),
  });
  const responder = createResponder({ self, topology, correlator, events, maxRounds, maxChars });

  function ask(o: PeerSendOptions, conversationId: string, round: number): Promise<Reply<PeerSendAnswer>> {
    requestId = `${conversationId}#${round}`;
    return correlator.request(peerSendProtocol, {
      to: o.to,
      payload: { conversation_id: conversationId, round, message: o.message },
      timeoutMs: o.timeoutMs ?? defaultTimeoutMs,
      ...(o.signal === undefined ? {} : { signal: o.signal }),
    });
  }

  const endpoint: PeerEndpoint = {
    self,
    topology,
    prefix,
    maxRounds,
    maxChars,
    nextId,
    events,
    correlator,
    conversations,
    isClosed: () => closed,
    claim: (key, input) =>
      claimConversation(conversations, live, { now: clock.now(), maxConversations }, key, input),
    ask,
  };
  return {
    self,
    send: (o) => sendToPeer(endpoint, o),
    receive: (message) => correlator.receive(message),
    onMessage: responder.onMessage,
    async conversation(id) {
      const record = await conversations.read(`${prefix}conv:${id}`);
      if (record === undefined) return undefined;
      const { from, to, rounds, ended, startedAt, expiresAt } = record;
      return { id, from, to, rounds, maxRounds, ended, startedAt, expiresAt };
    },
    restore: () => correlator.restore(),
    on: (event, listener) => events.on(event, listener),
    close() {
      closed = true;
      correlator.close();
    },
  };
}

/**
 * Decides a send on the stored conversation: a new one only while fewer than `maxConversations`
 * opened here are live (`live`, swept of the expired ones first).
 */
async function claimConversation(
  conversations: Conversations,
  live: LiveConversations,
  limits: { readonly now: number; readonly maxConversations: number },
  key: string,
  input: SendInput,
): Promise<SendDecision> {
  const { now, maxConversations } = limits;
  live.sweep(now);
  const admit = (): string | undefined =>
    live.size >= maxConversations
      ? `${live.size} conversations are open (maxConversations ${maxConversations})`
      : undefined;
  const decision = await conversations.claim(key, input, admit);
  if (decision.ok && !decision.replay && decision.round === 1) {
    live.add(input.conversationId, decision.record.expiresAt);
  }
  return decision;
}

function checkOptions(options: PeersOptions): PeersOptions {
  const bad = (message: string): never => {
    throw new PeersError('invalid_argument', message);
  };
  if (typeof options !== 'object' || options === null) bad('createPeers needs options');
  if (typeof options.self !== 'string' || !ID_PATTERN.test(options.self)) bad('self must be a short id');
  const topology = options.topology as Partial<PeersOptions['topology']> | undefined;
  if (typeof topology?.check !== 'function' || typeof topology.agent !== 'function') {
    bad('topology must be a @parley/envelope topology (check and agent)');
  }
  if (typeof options.send !== 'function') bad('send must be a function');
  const limits = [
    ['maxRounds', options.maxRounds, MAX_ROUNDS_CAP],
    ['maxConversations', options.maxConversations, 1_000_000],
    ['maxMessageChars', options.maxMessageChars, 10_000_000],
    ['maxPending', options.maxPending, 1_000_000],
  ] as const;
  for (const [name, value, max] of limits) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1 || value > max)) {
      bad(`${name} must be an integer from 1 to ${max}`);
    }
  }
  return options;
}
