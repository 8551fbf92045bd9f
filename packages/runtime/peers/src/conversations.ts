// The stored conversations of an endpoint, kept as records of the durable kernel (@parley/core): each
// change is a pure rule (rules.ts) run on the freshly read record and committed with one compare-and-set.
import {
  type Clock,
  createKernel,
  createOwnerId,
  type JsonValue,
  type KernelRefusal,
  type KernelStep,
  type RecordCodec,
  type Store,
} from '@parley/core';
import {
  type ConversationRecord,
  decideSend,
  recordAnswer,
  type SendDecision,
  type SendInput,
  type SendLimits,
} from './rules.js';

/** How long a conversation's record outlives its expiry (late retries read their answer). */
const RETAIN_MS = 60_000;
/** Compare-and-set attempts of one change before `store_failed`. */
const ATTEMPTS = 3;

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A conversation record (`parley.peers.conversation`, format 1), every field checked. */
const CONVERSATIONS: RecordCodec<ConversationRecord> = {
  kind: 'parley.peers.conversation',
  version: 1,
  decode(data) {
    if (!isObject(data) || data.version !== 1 || !isObject(data.sends)) return undefined;
    const texts = [data.id, data.from, data.to].every((v) => typeof v === 'string');
    const numbers = [data.startedAt, data.expiresAt, data.rounds].every(Number.isFinite);
    const sends = Object.values(data.sends).every(
      (s) => isObject(s) && Number.isInteger(s.round) && typeof s.digest === 'string',
    );
    return texts && numbers && sends && typeof data.ended === 'boolean'
      ? (data as unknown as ConversationRecord) // every field checked above
      : undefined;
  },
  encode: (value) => value as unknown as JsonValue, // plain JSON by construction
};

/** @internal The conversations of one endpoint in its store. */
export interface Conversations {
  /** Decides a send on the stored conversation and commits its round; `admit` bounds new conversations. */
  claim(key: string, input: SendInput, admit: () => string | undefined): Promise<SendDecision>;
  /** Records a round's answer (best effort: the reply is the caller's either way). */
  saveAnswer(key: string, sendId: string, answer: { reply: unknown; end: boolean }): Promise<void>;
  /** The stored conversation, or `undefined` (absent, or a record this endpoint cannot read). */
  read(key: string): Promise<ConversationRecord | undefined>;
}

/** @internal */
export function createConversations(store: Store, clock: Clock, limits: SendLimits): Conversations {
  // graceMs 0: a record lives exactly until its expiry plus RETAIN_MS (its deadlineAt)
  const kernel = createKernel({ store, clock, owner: createOwnerId('peers'), graceMs: 0 });
  const until = (record: ConversationRecord): number => record.expiresAt + RETAIN_MS;
  return {
    async claim(key, input, admit) {
      const decide: KernelStep<ConversationRecord, SendInput, SendDecision> = (current, sent, now) => {
        const decision = decideSend(current, sent, now, limits);
        const full = decision.ok && current === undefined ? admit() : undefined;
        if (full !== undefined) {
          return { value: current, effects: [{ ok: false, code: 'too_many_conversations', message: full }] };
        }
        if (!decision.ok || decision.replay) return { value: current, effects: [decision] }; // nothing to write
        return { value: decision.record, effects: [decision], deadlineAt: until(decision.record) };
      };
      const done = await kernel.apply(key, CONVERSATIONS, decide, input, { maxAttempts: ATTEMPTS });
      return done.ok ? (done.effects[0] as SendDecision) : storeError(done);
    },
    async saveAnswer(key, sendId, answer) {
      const save: KernelStep<ConversationRecord, string, never> = (current, id) =>
        current?.sends[id] === undefined
          ? { value: current, effects: [] } // gone (expired) or not this send's: nothing to record
          : { value: recordAnswer(current, id, answer), effects: [] };
      await kernel.apply(key, CONVERSATIONS, save, sendId, { maxAttempts: ATTEMPTS });
    },
    async read(key) {
      return (await kernel.read(key, CONVERSATIONS).catch(() => undefined))?.value;
    },
  };
}

/** The refusal of a change the kernel could not commit: always `store_failed`, with the kernel's reason. */
function storeError(refusal: KernelRefusal): SendDecision {
  const why =
    refusal.code === 'write_conflict'
      ? `Lost ${ATTEMPTS} writes of the conversation in a row`
      : `The conversation could not be stored (${refusal.code}): ${refusal.message}`;
  return { ok: false, code: 'store_failed', message: why };
}
