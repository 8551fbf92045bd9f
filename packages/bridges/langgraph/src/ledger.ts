import {
  type Clock,
  createKernel,
  createMemoryStore,
  createOwnerId,
  type KernelStep,
  type Lease,
  type RecordCodec,
  type Store,
} from '@parley/core';
import { LangGraphBridgeError } from './errors.js';
import { type ConfirmAnswer, readAnswer } from './interrupt.js';

/** How long an answer is kept in the store: 7 days. */
export const LEDGER_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * How long a claim to resume an interrupt holds: 5 minutes. A resumer that fails releases it at
 * once; one whose process died holds it until then, and the next resumer takes over after. The
 * claim is a fenced lease: a resumer whose claim expired and was taken over cannot release the
 * claim of the one that took over.
 */
export const RESUME_LEASE_MS = 5 * 60 * 1000;

/**
 * The answers a thread's interrupts were given, by thread + interrupt id + request key, and who
 * resumes each interrupt: kept in the Parley `Store` through the durable kernel, so that a
 * restarted process neither asks the person again for an answer given before the restart nor
 * resumes an interrupt while another resumer's claim holds. A stored answer that is not one (or of
 * another format) is refused with a thrown {@link LangGraphBridgeError}, never used.
 */
export interface AnswerLedger {
  /** The answer recorded for this request, when it was for the same action (same digest). */
  answered(
    threadId: string,
    interruptId: string,
    key: string,
    digest: string,
  ): Promise<ConfirmAnswer | undefined>;
  /**
   * Records the answer unless one for the same action is recorded already; returns the one that
   * counts (the first: a second authorization of the same decision is refused, not an answer).
   */
  record(threadId: string, interruptId: string, key: string, answer: ConfirmAnswer): Promise<ConfirmAnswer>;
  /** Takes the right to resume the interrupt (a lease); `undefined` while another resumer holds it. */
  claim(threadId: string, interruptId: string): Promise<Lease | undefined>;
  /** Gives the right back (the resume failed); nothing when it was taken over meanwhile. */
  release(lease: Lease): Promise<void>;
}

const ANSWERS: RecordCodec<ConfirmAnswer> = {
  kind: 'parley.langgraph.answer',
  version: 1,
  decode: (data) => readAnswer({ answer: data }, 'answer'),
  encode: (answer) => ({ ...answer }),
};

/** The resume claims are lease-only records (the kernel keeps their data `null`). */
const RESUMES: RecordCodec<true> = {
  kind: 'parley.langgraph.resume',
  version: 1,
  decode: (data) => (data === true ? true : undefined),
  encode: () => true,
};

/** A ledger in `store` under `prefix`; without a store, one in this run's memory only. */
export function createAnswerLedger(store: Store | undefined, prefix: string, clock?: Clock): AnswerLedger {
  const kernel = createKernel({
    store: store ?? createMemoryStore(clock === undefined ? {} : { clock }),
    ...(clock === undefined ? {} : { clock }),
    owner: createOwnerId('langgraph'),
  });
  const at = (...parts: readonly string[]): string => `${prefix}${parts.join('\u0000')}`;
  return {
    async answered(threadId, interruptId, key, digest) {
      const found = await kernel.read(at('answer', threadId, interruptId, key), ANSWERS).catch(rethrow);
      return found?.value.digest === digest ? found.value : undefined;
    },
    async record(threadId, interruptId, key, answer) {
      const first: KernelStep<ConfirmAnswer, ConfirmAnswer, ConfirmAnswer> = (current, next, now) =>
        current?.digest === next.digest
          ? { value: current, effects: [current] }
          : { value: next, effects: [next], deadlineAt: now + LEDGER_TTL_MS };
      const done = await kernel.apply(at('answer', threadId, interruptId, key), ANSWERS, first, answer);
      if (!done.ok) throw errorOf(done);
      return done.effects[0] ?? answer;
    },
    async claim(threadId, interruptId) {
      const taken = await kernel.acquire(at('resumed', threadId, interruptId), RESUMES, {
        ttlMs: RESUME_LEASE_MS,
      });
      if (taken.ok) return taken.lease;
      if (taken.code === 'lease_held') return undefined;
      throw errorOf(taken);
    },
    release: (lease) => kernel.release(lease),
  };
}

/** The bridge's error for a kernel refusal or error: a refused record keeps its code, the rest is `store_failed`. */
function errorOf(refusal: { readonly code: string; readonly message: string }): LangGraphBridgeError {
  const code =
    refusal.code === 'corrupt_record' || refusal.code === 'record_version' ? refusal.code : 'store_failed';
  return new LangGraphBridgeError(code, refusal.message, { details: { code: refusal.code } });
}

function rethrow(error: unknown): never {
  throw errorOf({ code: String(Reflect.get(Object(error), 'code')), message: String(error) }); // a KernelError
}
