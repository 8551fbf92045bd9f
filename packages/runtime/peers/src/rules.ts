// The pure half of a blocking send: given the stored conversation (or none), what the caller asks
// and the time now, either the next record to write and the round to send, or a refusal. It never
// reads a clock, awaits or touches a store; `peers.ts` performs what it decides.
import type { PeerRefusalCode } from './errors.js';

/** One send of a conversation, remembered by its send id: its round, content digest and answer. */
export interface SendEntry {
  readonly round: number;
  readonly digest: string;
  /** The reply, once it came (canonical JSON of the answer), so a retry gets it back. */
  readonly answer?: { readonly reply: unknown; readonly end: boolean } | undefined;
}

/** A conversation as it is stored: plain JSON. */
export interface ConversationRecord {
  readonly version: 1;
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly startedAt: number;
  readonly expiresAt: number;
  readonly rounds: number;
  readonly ended: boolean;
  readonly sends: Readonly<Record<string, SendEntry>>;
}

export interface SendInput {
  readonly conversationId: string;
  readonly from: string;
  readonly to: string;
  readonly sendId: string;
  readonly digest: string;
}

export interface SendLimits {
  readonly maxRounds: number;
  readonly conversationMs: number;
}

export type SendDecision =
  | {
      readonly ok: true;
      readonly record: ConversationRecord;
      readonly round: number;
      readonly entry: SendEntry;
      readonly replay: boolean;
    }
  | { readonly ok: false; readonly code: PeerRefusalCode; readonly message: string };

/** Decides one send against the stored conversation: a new round, a replay of a send, or a refusal. */
export function decideSend(
  stored: ConversationRecord | undefined,
  input: SendInput,
  now: number,
  limits: SendLimits,
): SendDecision {
  const record: ConversationRecord = stored ?? {
    version: 1,
    id: input.conversationId,
    from: input.from,
    to: input.to,
    startedAt: now,
    expiresAt: now + limits.conversationMs,
    rounds: 0,
    ended: false,
    sends: {},
  };
  if (record.from !== input.from || record.to !== input.to) {
    return refuse('id_reused', `Conversation "${record.id}" is between ${record.from} and ${record.to}`);
  }
  const known = record.sends[input.sendId];
  if (known !== undefined) {
    // Identity is content: the same send id with the same content is the same send.
    if (known.digest !== input.digest) {
      return refuse('id_reused', `Send "${input.sendId}" was already used with other content`);
    }
    return { ok: true, record, round: known.round, entry: known, replay: true };
  }
  // Decided now, whatever timers did: the stored absolute deadline first.
  if (now >= record.expiresAt)
    return refuse('conversation_expired', `Conversation "${record.id}" has expired`);
  if (record.ended) return refuse('conversation_ended', `${record.to} ended conversation "${record.id}"`);
  if (record.rounds >= limits.maxRounds) {
    return refuse('round_limit', `Conversation "${record.id}" has used its ${limits.maxRounds} rounds`);
  }
  const round = record.rounds + 1;
  const entry: SendEntry = { round, digest: input.digest };
  return {
    ok: true,
    record: { ...record, rounds: round, sends: { ...record.sends, [input.sendId]: entry } },
    round,
    entry,
    replay: false,
  };
}

/** Records the answer of a round (and a peer's `end`) on the conversation. */
export function recordAnswer(
  record: ConversationRecord,
  sendId: string,
  answer: { readonly reply: unknown; readonly end: boolean },
): ConversationRecord {
  const entry = record.sends[sendId] as SendEntry; // claimed by this send before it was sent
  return {
    ...record,
    ended: record.ended || answer.end,
    sends: { ...record.sends, [sendId]: { ...entry, answer } },
  };
}

function refuse(code: PeerRefusalCode, message: string): SendDecision {
  return { ok: false, code, message };
}
