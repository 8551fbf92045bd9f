// One session's confirmations inside its Virtual Object: the state, and the one place that feeds
// an event to a confirmation's pure step (`confirmStep`) and performs the effects it returns.
// Nothing here decides: every rule is the step's; this file only numbers, sends, times and stores.
import {
  allowanceCovers,
  allowanceOf,
  allowanceScope,
  type Confirmation,
  type ConfirmationEffect,
  type ConfirmationEvent,
  type ConfirmationTransition,
  type ConfirmDecision,
  type ConfirmRules,
  confirmStep,
  type StandingAllowance,
} from '@parley/confirm';
import * as restate from '@restatedev/restate-sdk';
import type { ConfirmOutbound } from '../confirmations-types.js';

/** The state of one session (the object's key): plain JSON, kept under one state key. */
export interface SessionState {
  /** The one counter of arrivals and sends: inbound messages and prompt sends get its next number. */
  counter: number;
  /** Undecided confirmations, and the one decided just before (`lately`) while it absorbs answers. */
  confirmations: Record<string, Confirmation>;
  /** The prompted confirmation, and those queued behind it. */
  active: string | null;
  queue: string[];
  lately: string | null;
  /** The current window timer of each confirmation: an older delayed call finds another number. */
  timers: Record<string, number>;
  /** Awakeables of waiters, per confirmation id. */
  watchers: Record<string, string[]>;
  /** Platform event ids that counted already (the newest 256). */
  counted: string[];
  /** Standing allowances by `allowanceScope`, each until its decision's `allowUntil` (the newest 64). */
  allowances?: Record<string, { readonly allowance: StandingAllowance; readonly allowUntil: number }>;
}

export const SESSION = 'session';
export const MAX_COUNTED = 256;
export const MAX_ALLOWANCES = 64;
export const decisionKey = (id: string): string => `decision:${id}`;

export function emptySession(): SessionState {
  return {
    counter: 0,
    confirmations: {},
    active: null,
    queue: [],
    lately: null,
    timers: {},
    watchers: {},
    counted: [],
  };
}

/** What a handler gives the session: its context, the object's name, the rules and the host's send. */
export interface SessionHost {
  readonly ctx: restate.ObjectContext;
  readonly name: string;
  readonly rules: ConfirmRules;
  readonly send: (out: ConfirmOutbound) => Promise<boolean>;
  readonly state: SessionState;
}

/**
 * Feeds `event` to confirmation `id` (if it is still held) and performs the effects, in order. The
 * step runs at `now` when the caller read the clock for this event already (what it decided before
 * feeding, such as whether a standing allowance still covers the request, and the step's decision
 * then rest on one reading), otherwise at a reading taken now.
 */
export async function feed(
  host: SessionHost,
  id: string,
  event: ConfirmationEvent,
  now?: number,
): Promise<ConfirmationTransition | undefined> {
  const c = host.state.confirmations[id];
  if (c === undefined) return undefined;
  const done = confirmStep(c, event, now ?? (await host.ctx.date.now()), host.rules);
  host.state.confirmations[id] = done.next;
  for (const effect of done.effects) await perform(host, id, done.next, effect);
  return done;
}

async function perform(
  host: SessionHost,
  id: string,
  c: Confirmation,
  effect: ConfirmationEffect,
): Promise<void> {
  const { ctx, state } = host;
  const sessionKey = ctx.key;
  switch (effect.type) {
    case 'write_then_send': {
      // One writer per session: the state is this object's, written when the handler ends; no write is lost.
      await feed(host, id, { type: 'send_begun', sends: effect.sends, seq: ++state.counter });
      const out = { type: 'prompt', kind: effect.kind, sessionKey, record: c.record } as const;
      const sent = await ctx.run(`prompt ${id} #${effect.sends}`, () => host.send(out));
      if (!sent) {
        await feed(host, id, { type: 'send_failed', sends: effect.sends });
        return;
      }
      const delivered = { sends: effect.sends, seq: ++state.counter, kind: effect.kind, order: undefined };
      await feed(host, id, { type: 'delivered', ...delivered });
      return;
    }
    case 'timer': {
      // A durable timer: a delayed call to this object; only the newest timer of a confirmation counts.
      const timer = (state.timers[id] ?? 0) + 1;
      state.timers[id] = timer;
      ctx.genericSend({
        service: host.name,
        method: 'windowOver',
        key: sessionKey,
        parameter: { id, timer },
        inputSerde: restate.serde.json,
        delay: effect.delayMs,
      });
      return;
    }
    case 'decided':
      return decided(host, c, effect.decision, effect.notice);
    /* v8 ignore next 5 -- the step asks for a too-early notice only for an answer that came before the
       prompt's delivery, and here delivery ends the same exclusive handler that began the send */
    case 'notice':
      await ctx.run(`notice ${id} ${effect.name}`, () =>
        host.send({ type: 'notice', name: effect.name, sessionKey, id }),
      );
      return;
    case 'page':
      await ctx.run(`page ${id} ${effect.index}`, () =>
        host.send({ type: 'page', index: effect.index, sessionKey, record: c.record }),
      );
      return;
    case 'late':
      await ctx.run(`late ${id}`, () => host.send({ type: 'late', outcome: effect.outcome, sessionKey, id }));
      return;
    case 'forget':
      forget(state, id);
      return;
    default:
      // `write` (the state is written when the handler ends), `wake` (no answer is held: the host
      // gives no platform order), `announce`, and the replica effects `grace` and `dropped` (one
      // writer, no followers) need nothing here.
      return;
  }
}

/**
 * Stores the decision, wakes its waiters, tells the session, and keeps it as the session's one
 * decided just before while the step says it absorbs its approvers' late answers (`after`).
 */
async function decided(
  host: SessionHost,
  c: Confirmation,
  decision: ConfirmDecision,
  notice: 'timedOut' | 'expired' | undefined,
): Promise<void> {
  const { ctx, state } = host;
  const id = c.record.id;
  ctx.set(decisionKey(id), decision);
  for (const awakeableId of state.watchers[id] ?? []) ctx.resolveAwakeable(awakeableId, null);
  delete state.watchers[id];
  delete state.timers[id];
  state.queue = state.queue.filter((queued) => queued !== id);
  if (state.active === id) state.active = null;
  if (state.lately !== null && state.lately !== id) forget(state, state.lately);
  if (c.after === null) forget(state, id);
  else state.lately = id;
  keepAllowance(state, c, decision, await ctx.date.now());
  await ctx.run(`decided ${id}`, () => host.send({ type: 'decided', sessionKey: ctx.key, decision, notice }));
}

function forget(state: SessionState, id: string): void {
  delete state.confirmations[id];
  delete state.timers[id];
  if (state.lately === id) state.lately = null;
}

/** Prompts the next queued confirmation once the session has no prompted one. */
export async function advance(host: SessionHost): Promise<void> {
  const { state } = host;
  while (state.active === null && state.queue.length > 0) {
    const next = state.queue.shift() as string;
    state.active = next;
    await feed(host, next, { type: 'prompt' });
  }
}

/**
 * Stores the standing allowance a decision grants (`allowanceOf`) under its scope until the
 * decision's `allowUntil`; allowances past their window are dropped, and at most
 * {@link MAX_ALLOWANCES} are kept (the oldest go first).
 */
function keepAllowance(state: SessionState, c: Confirmation, decision: ConfirmDecision, now: number): void {
  const allowance = allowanceOf(decision, c.record);
  const kept = Object.entries(state.allowances ?? {}).filter(([, entry]) => now < entry.allowUntil);
  if (allowance !== undefined && decision.allowUntil !== undefined)
    kept.push([allowanceScope(c.record), { allowance, allowUntil: decision.allowUntil }]);
  state.allowances = Object.fromEntries(kept.slice(-MAX_ALLOWANCES));
}

/**
 * Who the session's standing allowance lets confirm `c` at once (`allowanceCovers`): the granter
 * of the allowance in its scope while its window lasts, or `null`.
 */
export function coveringGrant(state: SessionState, c: Confirmation, now: number): string | null {
  const entry = state.allowances?.[allowanceScope(c.record)];
  return allowanceCovers(
    c.record,
    entry !== undefined && now < entry.allowUntil ? entry.allowance.grantedBy : undefined,
  );
}
