// Confirmations as a Restate Virtual Object keyed by session key: one writer per chat, every
// change of a confirmation decided by @parley/confirm's pure step (confirmStep).
import {
  type AuthorizeResult,
  authorizeStep,
  type Confirmation,
  type ConfirmationAnswer,
  type ConfirmDecision,
  confirmRules,
  createConfirmation,
  digestAction,
  type UsableDecision,
} from '@parley/confirm';
import { isParleyError } from '@parley/core';
import * as restate from '@restatedev/restate-sdk';
import type {
  ConfirmationsHandlers,
  ConfirmationsObject,
  ConfirmationsOptions,
  InboundResult,
  RequestConfirmationResult,
} from './confirmations-types.js';
import { ParleyRestateError } from './errors.js';
import type { Watched } from './watched.js';
import {
  advance,
  coveringGrant,
  decisionKey,
  emptySession,
  feed,
  MAX_COUNTED,
  SESSION,
  type SessionHost,
  type SessionState,
} from './internal/confirm-session.js';

/** At most this many waiters per confirmation (`too_many_watchers` past it). */
const MAX_WATCHERS = 64;

/**
 * Defines confirmations as a Restate Virtual Object keyed by session key. `request` makes a
 * confirmation with `createConfirmation` and admits and prompts it with `confirmStep` (the
 * prompt sent by the host's `send` inside `ctx.run`); `reply` and `click` feed the session's
 * inbound messages to it, each numbered by the session's one counter; its window is a durable
 * timer; `authorize` (cluster only) lets a confirmed decision be used once, for its exact action.
 * Every rule is the confirm step's, with `confirmRules(options.rules)`.
 *
 * With `rules.standingAllowanceMs`, an "always allow" answer grants a standing allowance (kept in
 * the object, judged by `@parley/confirm`'s `allowanceOf`, `allowanceScope` and
 * `allowanceCovers`) that confirms the session's later requests for the same action name at once
 * until its `allowUntil`.
 *
 * @throws ParleyRestateError `invalid_argument` for an empty name, a `send` that is not a
 * function, or rules the confirm gate would refuse.
 * @example
 * ```ts
 * import { defineConfirmations } from '@parley/restate';
 *
 * const confirmations = defineConfirmations({
 *   name: 'confirmations',
 *   send: async (out) => {
 *     if (out.type === 'prompt') console.log(`to ${out.sessionKey}: ${out.record.summary}?`);
 *     return true;
 *   },
 * });
 * console.log(confirmations.name); // confirmations
 * ```
 */
export function defineConfirmations<TName extends string>(
  options: ConfirmationsOptions & { readonly name: TName },
): ConfirmationsObject<TName> {
  const { name, send } = options;
  if (typeof name !== 'string' || name === '')
    throw new ParleyRestateError('invalid_argument', 'name must be a non-empty string');
  if (typeof send !== 'function') throw new ParleyRestateError('invalid_argument', 'send must be a function');
  let rules: ReturnType<typeof confirmRules>;
  try {
    rules = confirmRules(options.rules);
  } catch (error) {
    throw new ParleyRestateError('invalid_argument', (error as Error).message, { cause: error });
  }

  async function session(ctx: restate.ObjectContext): Promise<SessionHost> {
    const state = (await ctx.get<SessionState>(SESSION)) ?? emptySession();
    return { ctx, name, rules, send, state };
  }
  const save = (host: SessionHost): void => host.ctx.set(SESSION, host.state);

  /** Offers a reply to the session's confirmation decided just before: consumed when it absorbs it. */
  async function offerToDecided(
    host: SessionHost,
    reply: ConfirmationAnswer,
  ): Promise<InboundResult | undefined> {
    const lately = host.state.lately;
    if (lately === null) return undefined;
    const done = await feed(host, lately, reply);
    return done?.result?.kind === 'ignore' ? { consumed: true, id: lately, verdict: done.result } : undefined;
  }

  const handlers: ConfirmationsHandlers = {
    request: async (ctx, input): Promise<RequestConfirmationResult> => {
      const id = input?.id;
      if (typeof id === 'string' && (await ctx.get(decisionKey(id))) !== null) {
        return { ok: false, code: 'duplicate_confirmation', message: `Confirmation "${id}" exists already` };
      }
      const host = await session(ctx);
      if (typeof id === 'string' && host.state.confirmations[id] !== undefined) {
        return { ok: false, code: 'duplicate_confirmation', message: `Confirmation "${id}" exists already` };
      }
      if (input?.request?.sessionKey !== ctx.key) {
        const text = `The request names session "${String(input?.request?.sessionKey)}" but was sent to "${ctx.key}"`;
        return { ok: false, code: 'session_mismatch', message: text };
      }
      const now = await ctx.date.now();
      try {
        host.state.confirmations[id] = createConfirmation(input.request, {
          id,
          now,
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          ...(options.approvers === undefined ? {} : { approvers: options.approvers }),
        });
      } catch (error) {
        if (!isParleyError(error)) throw error;
        return { ok: false, code: 'invalid_request', message: error.message };
      }
      const { state } = host;
      const held = Object.values(state.confirmations).filter((c) => c.state !== 'done').length - 1;
      const view = {
        aborted: false,
        held,
        closed: false,
        multiStep: input.request.steps !== undefined,
        grant: 'unread' as string | null,
        active: state.active !== null,
        queued: state.queue.length,
      };
      // Admitted and prompted at the reading it arrived at: the allowance that covers it is judged at
      // the same instant its decision is dated (a second reading could fall past the window's end).
      let admitted = await feed(host, id, { type: 'admit', view }, now);
      if (admitted?.admission?.kind === 'read_grant') {
        // The step asks for the standing allowance covering it, then admits it again with it.
        const grant = coveringGrant(state, state.confirmations[id] as Confirmation, now);
        admitted = await feed(host, id, { type: 'admit', view: { ...view, grant } }, now);
      }
      const admission = admitted?.admission;
      if (admission?.kind === 'queue') state.queue.push(id);
      if (admission?.kind === 'supersede' && state.active !== null) {
        await feed(host, state.active, { type: 'settle', outcome: 'superseded', reason: 'superseded' });
      }
      if (admission?.kind === 'prompt' || admission?.kind === 'supersede') {
        state.active = id;
        await feed(host, id, { type: 'prompt' }, now);
      }
      await advance(host);
      save(host);
      const after = state.confirmations[id];
      const answer =
        after === undefined || after.state === 'done'
          ? 'decided'
          : after.state === 'queued'
            ? 'queued'
            : 'prompted';
      return { ok: true, id, state: answer };
    },

    reply: async (ctx, input): Promise<InboundResult> => {
      const host = await session(ctx);
      const { state } = host;
      const arrival = ++state.counter;
      const event = input.eventId;
      if (event !== undefined && state.counted.includes(event)) {
        save(host);
        return { consumed: true, code: 'stale_reply' };
      }
      const reply = {
        type: 'reply',
        text: String(input.text),
        senderId: String(input.senderId),
        arrival,
        order: undefined,
        bot: input.bot === true,
      } as const;
      let result: InboundResult;
      if (state.active === null) {
        result = (await offerToDecided(host, reply)) ?? { consumed: false };
      } else {
        const id = state.active;
        let done = await feed(host, id, reply);
        let offered: InboundResult | undefined;
        /* v8 ignore next 5 -- the step's before_send path: here a prompt's send begins and ends inside one
           exclusive handler, so every reply the object numbers comes after the active prompt's send began;
           kept so the host follows the step's contract if sends ever leave the handler */
        if (done?.result?.kind === 'before_send') {
          // It reached the session before this prompt's send began: it may answer the one decided just before.
          offered = await offerToDecided(host, reply);
          if (offered === undefined) done = await feed(host, id, { ...reply, lateChecked: true });
        }
        const verdict = done?.result;
        result = offered ?? {
          consumed:
            verdict !== undefined &&
            verdict.kind !== 'pass' &&
            (verdict.kind !== 'expire' || verdict.consumed),
          id,
          ...(verdict === undefined ? {} : { verdict }),
        };
      }
      const counts =
        result.verdict !== undefined && result.verdict.kind !== 'pass' && result.verdict.kind !== 'ignore';
      if (counts && event !== undefined) state.counted = [...state.counted, event].slice(-MAX_COUNTED);
      await advance(host);
      save(host);
      return result;
    },

    click: async (ctx, input): Promise<InboundResult> => {
      const host = await session(ctx);
      const arrival = ++host.state.counter;
      const id = String(input.id);
      const c = host.state.confirmations[id];
      if (c === undefined) {
        save(host);
        return { consumed: true, code: 'unknown_confirmation' };
      }
      const done = await feed(host, id, {
        type: 'card',
        choice: input.choice,
        senderId: String(input.senderId),
        sessionKey: ctx.key,
        promptSession: c.record.sessionKey,
        arrival,
        bot: input.bot === true,
      });
      await advance(host);
      save(host);
      return { consumed: true, id, ...(done?.result === undefined ? {} : { verdict: done.result }) };
    },

    windowOver: restate.handlers.object.exclusive({ ingressPrivate: true }, async (ctx, input) => {
      const host = await session(ctx);
      if (host.state.timers[input.id] !== input.timer) return; // a newer timer replaced it
      delete host.state.timers[input.id];
      await feed(host, input.id, { type: 'window_over' });
      await advance(host);
      save(host);
    }),

    watch: restate.handlers.object.exclusive(
      { ingressPrivate: true },
      async (ctx, input): Promise<Watched<ConfirmDecision>> => {
        const decision = await ctx.get<ConfirmDecision>(decisionKey(input.id));
        if (decision !== null) return { ok: true, watching: false, record: decision };
        const host = await session(ctx);
        if (host.state.confirmations[input.id] === undefined) {
          return { ok: false, code: 'unknown_confirmation', message: `No confirmation "${input.id}"` };
        }
        const watchers = host.state.watchers[input.id] ?? [];
        if (watchers.length >= MAX_WATCHERS) {
          const text = `Confirmation "${input.id}" has ${MAX_WATCHERS} waiters already`;
          return { ok: false, code: 'too_many_watchers', message: text };
        }
        host.state.watchers[input.id] = [...watchers, input.awakeableId];
        save(host);
        return { ok: true, watching: true };
      },
    ),

    authorize: restate.handlers.object.exclusive(
      { ingressPrivate: true },
      async (ctx, input): Promise<AuthorizeResult> => {
        const key = decisionKey(String(input.id));
        const stored = (await ctx.get<UsableDecision>(key)) ?? undefined;
        const digest = await digestAction(input.action);
        const used = authorizeStep(stored, digest, await ctx.date.now());
        if (!used.ok) return used;
        ctx.set(key, used.record);
        const { usedAt: _usedAt, ...decision } = used.record;
        return { ok: true, decision };
      },
    ),

    decision: restate.handlers.object.shared(async (ctx, id): Promise<ConfirmDecision | null> => {
      const stored = await ctx.get<UsableDecision>(decisionKey(String(id)));
      if (stored === null) return null;
      const { usedAt: _usedAt, ...decision } = stored;
      return decision;
    }),
  };
  return restate.object({ name, handlers });
}
