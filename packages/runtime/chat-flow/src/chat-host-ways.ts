// The ways a chat-flow turn's context writes (submit, save, effect, ask, setData), as functions of
// the turn: one table per host, bound to a context only when a callback reads one.
import { askNow } from './chat-host-ask.js';
import { TurnContext, type TurnWays } from './chat-host-context.js';
import {
  committed,
  leaseAgain,
  pick,
  Refused,
  saveTurn,
  stored,
  type Turn,
  type TurnHost,
} from './chat-host-turn.js';
import type { JsonValue } from '@parley/core';
import type { ChatContext, ChatEffectClaim } from './chat-host-types.js';
import type { StoredSubmitResult } from './stored-session-types.js';

/** @internal The context the host's callbacks get for `turn`. */
export function contextOf<TStep extends string, TContext, TData>(
  turn: Turn<TStep, TContext, TData>,
  host: TurnHost<TStep, TContext, TData>,
): ChatContext<TStep, TContext, TData> {
  host.ways ??= waysOf(host);
  return new TurnContext(turn, turn.session, host.ways);
}

/** @internal Submits `fields` in `turn` as `ctx.submit` does, without binding it to the context. */
export function submitTurn<TStep extends string, TContext, TData, R>(
  turn: Turn<TStep, TContext, TData>,
  host: TurnHost<TStep, TContext, TData>,
  ctx: ChatContext<TStep, TContext, TData>,
  fields: unknown,
  end: (written: StoredSubmitResult<TStep, TContext>) => R | Promise<R>,
): Promise<R> {
  host.ways ??= waysOf(host);
  return host.ways.submitThen(turn, ctx, fields, end);
}

/** The ways of writing of every turn of `host`. */
function waysOf<TStep extends string, TContext, TData>(
  host: TurnHost<TStep, TContext, TData>,
): TurnWays<TStep, TContext, TData, Turn<TStep, TContext, TData>> {
  const { options, clock, events } = host;
  /** `ctx.submit` of `turn`: no async frame, the write's promise followed. */
  const submitNow = <R>(
    turn: Turn<TStep, TContext, TData>,
    ctx: ChatContext<TStep, TContext, TData>,
    fields: unknown,
    more: { readonly transient?: { readonly [field: string]: JsonValue } } | undefined,
    end: (written: StoredSubmitResult<TStep, TContext>) => R | Promise<R>,
  ): Promise<R> => {
    const { session } = turn;
    const { state, part } = session.snapshot();
    const done = { step: state as TStep, part };
    const name = options.claims?.(done);
    const before = turn.ledger;
    let claim: ChatEffectClaim | undefined;
    const data = (verdict: { readonly ok: boolean }): TData => {
      if (name !== undefined && verdict.ok && before.effect?.state !== 'running') {
        claim = { name, step: state, part, state: 'running', claimedAt: clock.now(), doneAt: null };
        turn.ledger = { ...before, effect: claim };
      }
      return stored(turn);
    };
    const giveBack = turn.lastSubmit;
    turn.lastSubmit = false;
    // the turn's last write with nothing of effect run: the compare-and-set alone fences it
    const free = giveBack && turn.free && !turn.leased;
    const write = () => session.submit(fields, { data, ...more, release: giveBack });
    // no async frame: the write's promise is followed (after the lease, when one is taken first)
    const writing = turn.leased || free ? write() : leaseAgain(turn, host).then(write);
    return writing.then((written) => {
      if (!written.ok) {
        turn.ledger = before;
        turn.raced = free && written.code === 'conflict';
        return end(written);
      }
      committed(turn, host, giveBack);
      if (!written.result.ok) return end(written);
      if (claim !== undefined) {
        turn.claimed = claim;
        events.emit('effect-claimed', { id: session.id, ...pick(claim), at: claim.claimedAt });
      }
      turn.asked = false;
      const made = claim;
      const ending = () => {
        if (made !== undefined && turn.claimed === made) dropClaim(turn, before.effect);
        const asking = turn.asked ? undefined : askNow(turn, options, ctx);
        return asking === undefined ? end(written) : asking.then(() => end(written));
      };
      const { after } = options;
      return after === undefined ? ending() : Promise.resolve(after(done, ctx)).then(ending);
    });
  };
  const guarded: typeof submitNow = (turn, ctx, fields, more, end) => {
    try {
      return submitNow(turn, ctx, fields, more, end);
    } catch (error) {
      return Promise.reject(error); // `claims` threw: a promise still answers
    }
  };
  return {
    setData(turn, data) {
      turn.data = data;
      turn.split = true;
      turn.dirty = true;
    },
    submit: (turn, ctx, fields, more) => guarded(turn, ctx, fields, more, same),
    submitThen: (turn, ctx, fields, end) => guarded(turn, ctx, fields, undefined, end),
    save: (turn) => saveTurn(turn, host),
    async effect(turn, ctx, name, run) {
      let claim = turn.claimed;
      if (claim?.name !== name) {
        if (claim !== undefined) dropClaim(turn, null);
        claim = await claimNow(turn, host, ctx, name);
      }
      turn.claimed = undefined;
      let value: Awaited<ReturnType<typeof run>>;
      try {
        value = await run();
      } catch (error) {
        events.emit('outcome-unknown', { id: turn.session.id, ...pick(claim), claimedAt: claim.claimedAt });
        throw error;
      }
      turn.ledger = { ...turn.ledger, effect: { ...claim, state: 'done', doneAt: clock.now() } };
      turn.done = claim;
      return value;
    },
    async ask(turn, ctx) {
      await askNow(turn, options, ctx);
    },
  };
}

const same = <T>(value: T): T => value;

/** Writes a claim of effect `name` before it runs; refused while an earlier outcome is unknown. */
async function claimNow<TStep extends string, TContext, TData>(
  turn: Turn<TStep, TContext, TData>,
  host: TurnHost<TStep, TContext, TData>,
  ctx: ChatContext<TStep, TContext, TData>,
  name: string,
): Promise<ChatEffectClaim> {
  const { session } = turn;
  const earlier = turn.ledger.effect;
  if (earlier?.state === 'running') {
    throw new Refused('outcome_unknown', `the outcome of ${earlier.name} (${earlier.step}) is unknown`);
  }
  const at = host.clock.now();
  const claim: ChatEffectClaim = {
    ...{ name, step: session.step, part: session.snapshot().part },
    ...{ state: 'running', claimedAt: at, doneAt: null },
  };
  const before = turn.ledger;
  turn.ledger = { ...turn.ledger, effect: claim };
  const saved = await ctx.save();
  if (!saved.ok) {
    turn.ledger = before;
    throw new Refused(saved.code, saved.message, saved.cause);
  }
  host.events.emit('effect-claimed', { id: session.id, ...pick(claim), at });
  return claim;
}

/** Drops a claim made with a completion that `after` did not use: the next write clears it. */
function dropClaim<TStep extends string, TContext, TData>(
  turn: Turn<TStep, TContext, TData>,
  effect: ChatEffectClaim | null,
): void {
  turn.claimed = undefined;
  turn.ledger = { ...turn.ledger, effect };
}
