import type { Clock, IdGenerator, JsonValue, Store, Unsubscribe } from '@parley/core';
import type { CorrelateMessage, ReceiveResult } from '@parley/correlate';
import type { AgentDirectory, Envelope, TopologyCheck, TopologyRefusalCode } from '@parley/envelope';
import type { PeerRefusalCode } from './errors.js';

/**
 * Options of `createPeers`.
 *
 * @example
 * ```ts
 * import { createTopology } from '@parley/envelope';
 * import type { PeersOptions } from '@parley/peers';
 *
 * const options: PeersOptions = { self: 'ceo', topology: createTopology(), send: () => {}, maxRounds: 3 };
 * ```
 */
export interface PeersOptions {
  /** This agent's id in the topology. */
  readonly self: string;
  /** Who may send to whom: a blocking send needs two depth-0 agents (`@parley/envelope`'s `createTopology`). */
  readonly topology: AgentDirectory & {
    /** Tells whether an envelope may travel from its sender to its recipient. */
    check(envelope: Pick<Envelope, 'from' | 'to' | 'expect_response' | 'spawn_depth'>): TopologyCheck;
  };
  /** Hands an outgoing message to the transport (synchronous; a throw refuses the send with `send_failed`). */
  readonly send: (message: CorrelateMessage) => void;
  readonly clock?: Clock;
  /** Send ids when the caller gives none; nanoid by default. */
  readonly generateId?: IdGenerator;
  /** Conversations and pending rounds are written here and survive a restart; memory when omitted. */
  readonly store?: Store;
  /** Prefix of this endpoint's keys; `peers:<self>:` by default. */
  readonly keyPrefix?: string;
  /** Rounds per conversation, 1 to 20; 5 by default. */
  readonly maxRounds?: number;
  /** How long a sender blocks for one reply, by default; 30 s. */
  readonly timeoutMs?: number;
  /** How long a conversation may last from its first send; 10 min. */
  readonly conversationMs?: number;
  /** Conversations this endpoint may have open at once; 1 000. */
  readonly maxConversations?: number;
  /** Rounds waiting for a reply at once, and incoming rounds waiting for an answer; correlate's 10 000. */
  readonly maxPending?: number;
  /** The largest message or reply in canonical JSON characters; 16 000. */
  readonly maxMessageChars?: number;
}

/**
 * One blocking send.
 *
 * @example
 * ```ts
 * import type { PeerSendOptions } from '@parley/peers';
 *
 * const send: PeerSendOptions = { to: 'secretary', message: { ask: 'today summary' }, timeoutMs: 10_000 };
 * ```
 */
export interface PeerSendOptions {
  readonly to: string;
  readonly message: JsonValue;
  /** Continue this conversation; a new one (a fresh id) when omitted. */
  readonly conversationId?: string;
  /** The send's identity: the same id with the same content returns the same outcome, with other content `id_reused`. */
  readonly sendId?: string;
  /** How long to block for the reply; the endpoint's default otherwise. */
  readonly timeoutMs?: number;
  /** Stops waiting: the send is refused `cancelled`. */
  readonly signal?: AbortSignal;
}

/**
 * A refused send, as data.
 *
 * @example
 * ```ts
 * import type { PeerRefusal } from '@parley/peers';
 *
 * const refusal: PeerRefusal = { ok: false, code: 'round_limit', message: 'Conversation "c1" has used its 5 rounds' };
 * ```
 */
export interface PeerRefusal {
  readonly ok: false;
  readonly code: PeerRefusalCode | TopologyRefusalCode;
  readonly message: string;
  readonly conversationId?: string;
  readonly round?: number;
  /** For `refused_by_peer`: the code the peer gave. */
  readonly peerCode?: string;
}

/**
 * What a blocking send resolves with: the reply, or a refusal. Never rejects.
 *
 * @example
 * ```ts
 * import type { PeerSendResult } from '@parley/peers';
 *
 * const show = (r: PeerSendResult): string => (r.ok ? `round ${r.round}: ${JSON.stringify(r.reply)}` : r.code);
 * ```
 */
export type PeerSendResult =
  | {
      readonly ok: true;
      readonly conversationId: string;
      readonly round: number;
      readonly reply: unknown;
      /** Rounds this conversation has left (0 after the last one or after the peer ended it). */
      readonly roundsLeft: number;
      /** The peer ended the conversation with this reply. */
      readonly ended: boolean;
      /** A retry of a send already answered: the stored reply, nothing sent again. */
      readonly replayed: boolean;
    }
  | PeerRefusal;

/**
 * A send another agent made to this one, as the handler receives it.
 *
 * @example
 * ```ts
 * import type { IncomingSend } from '@parley/peers';
 *
 * const line = (s: IncomingSend): string => `${s.from} (round ${s.round}): ${JSON.stringify(s.message)}`;
 * ```
 */
export interface IncomingSend {
  readonly requestId: string;
  readonly conversationId: string;
  readonly round: number;
  readonly from: string;
  readonly message: unknown;
  /** The sender stops waiting at this time (epoch ms); an answer at or after it is not sent. */
  readonly deadlineAt: number;
}

/**
 * What a handler answers with: the reply, and `end: true` to close the conversation.
 *
 * @example
 * ```ts
 * import type { PeerAnswer } from '@parley/peers';
 *
 * const answer: PeerAnswer = { reply: { summary: '3 meetings' }, end: true };
 * ```
 */
export interface PeerAnswer {
  readonly reply: JsonValue;
  readonly end?: boolean;
}

/**
 * The events of an endpoint; each carries plain data.
 *
 * @example
 * ```ts
 * import type { PeersEvents } from '@parley/peers';
 *
 * const onRefused = (e: PeersEvents['refused']): void => console.log(e.direction, e.code);
 * ```
 */
export interface PeersEvents {
  /** A send of this endpoint got its reply. */
  replied: {
    readonly conversationId: string;
    readonly round: number;
    readonly to: string;
    readonly ended: boolean;
  };
  /** A send was refused: one this endpoint made (`out`), or one it was sent (`in`). */
  refused: {
    readonly direction: 'out' | 'in';
    readonly code: PeerRefusalCode | TopologyRefusalCode;
    readonly message: string;
    readonly peer: string;
    readonly conversationId?: string | undefined;
    readonly round?: number | undefined;
  };
}

/**
 * A conversation as {@link Peers.conversation} reports it.
 *
 * @example
 * ```ts
 * import type { ConversationView } from '@parley/peers';
 *
 * const left = (c: ConversationView): number => c.maxRounds - c.rounds;
 * ```
 */
export interface ConversationView {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly rounds: number;
  readonly maxRounds: number;
  readonly ended: boolean;
  readonly startedAt: number;
  readonly expiresAt: number;
}

/**
 * One agent's endpoint for blocking sends (`sessions_send`) to other depth-0 agents.
 *
 * @example
 * ```ts
 * import { createTopology } from '@parley/envelope';
 * import { createPeers, type Peers } from '@parley/peers';
 *
 * const peers: Peers = createPeers({ self: 'ceo', topology: createTopology(), send: () => {} });
 * peers.close();
 * ```
 */
export interface Peers {
  readonly self: string;
  /** Sends a message and blocks until the reply, the deadline or a refusal; never rejects. */
  send(options: PeerSendOptions): Promise<PeerSendResult>;
  /** Feeds an incoming message from the transport; never throws or rejects. */
  receive(message: unknown): Promise<ReceiveResult>;
  /** Sets the one handler that answers sends made to this agent; returns the function that removes it. */
  onMessage(handler: (send: IncomingSend) => PeerAnswer | Promise<PeerAnswer>): Unsubscribe;
  /** The conversation with this id, as stored. */
  conversation(id: string): Promise<ConversationView | undefined>;
  /** After a restart: takes over the rounds still pending in the store; resolves how many. */
  restore(): Promise<number>;
  /** Subscribes to an event; returns the function that unsubscribes. */
  on<K extends keyof PeersEvents & string>(
    event: K,
    listener: (payload: PeersEvents[K]) => void,
  ): Unsubscribe;
  /** Refuses every waiting send with `closed` and stops; stored conversations stay. */
  close(): void;
}
