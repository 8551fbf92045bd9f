import {
  type Clock,
  createKernel,
  createOwnerId,
  type JsonValue,
  type KernelStep,
  type RecordCodec,
  type Store,
} from '@parley/core';
import { effectsOf } from './internal/kernel-result.js';

/**
 * @internal Which confirmation an approved tool call was authorized under, kept in the store under
 * the call id, so that whichever process runs the tool records its effect in the right chain.
 */
export interface EffectLink {
  readonly toolCallId: string;
  readonly tool: string;
  /** The action digest (`digestAction`) of the tool and arguments that were authorized. */
  readonly digest: string;
  readonly sessionKey: string;
  readonly confirmationId: string;
  readonly linkedAt: number;
  /** Set once, right before the effect is appended: a second run of the call appends nothing. */
  readonly effect?: 'succeeded' | 'unknown';
}

/** @internal The bridge's effect links, kept through the durable kernel. */
export interface EffectLinks {
  /**
   * Links a call to its confirmation before the decision is used: `linked` (or already so linked,
   * kept as it is), or `reused` when the call id is linked to another confirmation or action whose
   * effect is still awaited.
   * @throws AiSdkBridgeError `store_failed`, `corrupt_record`, `record_version`.
   */
  link(link: Omit<EffectLink, 'effect'>): Promise<'linked' | 'reused'>;
  /** Drops a link whose decision can never authorize its action, when it is still that link. */
  unlink(link: Omit<EffectLink, 'effect'>): Promise<void>;
  /**
   * Marks the effect of a call that ran, once: the link to append it under, or `undefined` when the
   * call has no link, one of another action, or one whose effect was taken already.
   * @throws AiSdkBridgeError `store_failed`, `corrupt_record`, `record_version`.
   */
  takeEffect(
    toolCallId: string,
    match: { readonly digest: string },
    outcome: 'succeeded' | 'unknown',
  ): Promise<EffectLink | undefined>;
}

const isString = (value: unknown): boolean => typeof value === 'string';
const OUTCOMES: readonly unknown[] = ['succeeded', 'unknown'];

/** What each field of a stored link must be. */
const CHECKS: Readonly<Record<keyof EffectLink, (value: unknown) => boolean>> = {
  toolCallId: isString,
  tool: isString,
  digest: isString,
  sessionKey: isString,
  confirmationId: isString,
  linkedAt: Number.isFinite,
  effect: (v) => v === undefined || OUTCOMES.includes(v),
};
const checks = Object.entries(CHECKS);

/** @internal The codec of an effect link (format 1). */
const LINKS: RecordCodec<EffectLink> = {
  kind: 'parley.ai-sdk.effect-link',
  version: 1,
  decode: (data) => {
    const object = typeof data === 'object' && data !== null && !Array.isArray(data);
    const ok = object && checks.every(([field, check]) => check(Reflect.get(data, field)));
    return ok ? (data as unknown as EffectLink) : undefined; // every field checked
  },
  encode: (value) => ({ ...value }) as unknown as JsonValue, // plain JSON
};

/**
 * @internal The effect links under `prefix`: each change one compare-and-set of a step run on the
 * fresh record, each link living `ttlMs` after its last write.
 */
export function createEffectLinks(store: Store, prefix: string, ttlMs: number, clock: Clock): EffectLinks {
  const kernel = createKernel({ store, clock, owner: createOwnerId('ai-sdk') });
  const keyOf = (toolCallId: string): string => `${prefix}effect:${toolCallId}`;
  const same = (a: Omit<EffectLink, 'effect'>, b: EffectLink): boolean =>
    a.confirmationId === b.confirmationId && a.digest === b.digest; // the digest covers the tool's name

  const link: KernelStep<EffectLink, Omit<EffectLink, 'effect'>, 'linked' | 'reused'> = (
    current,
    next,
    now,
  ) => {
    if (current !== undefined && same(next, current)) return { value: current, effects: ['linked'] }; // kept as is
    if (current === undefined || current.effect !== undefined)
      return { value: next, effects: ['linked'], deadlineAt: now + ttlMs }; // new, or the earlier use is done
    return { value: current, effects: ['reused'] };
  };
  const unlink: KernelStep<EffectLink, Omit<EffectLink, 'effect'>, never> = (current, mine) => ({
    // nobody can use its decision for this action, so nobody marked its effect: still the link written, or gone
    value: current !== undefined && same(mine, current) ? undefined : current,
    effects: [],
  });
  const take: KernelStep<
    EffectLink,
    { readonly digest: string; readonly outcome: 'succeeded' | 'unknown' },
    EffectLink
  > = (current, ran, now) =>
    current === undefined || current.effect !== undefined || current.digest !== ran.digest
      ? { value: current, effects: [] }
      : { value: { ...current, effect: ran.outcome }, effects: [current], deadlineAt: now + ttlMs };

  return {
    async link(next) {
      const applied = await kernel.apply(keyOf(next.toolCallId), LINKS, link, next);
      return effectsOf(applied)[0] as 'linked' | 'reused'; // the step always answers one
    },
    async unlink(mine) {
      effectsOf(await kernel.apply(keyOf(mine.toolCallId), LINKS, unlink, mine), []);
    },
    async takeEffect(toolCallId, match, outcome) {
      const ran = { ...match, outcome };
      return effectsOf(await kernel.apply(keyOf(toolCallId), LINKS, take, ran), [])[0];
    },
  };
}
