import { type Clock, createEmitter, systemClock } from '@parley/core';
import {
  type ChatContext,
  type ChatEffectClaim,
  type ChatFlowHost,
  type ChatFlowHostEvents,
  type ChatFlowHostOptions,
  type ChatFlowLedger,
  type ChatFlowRefusalCode,
  type ChatFlowResult,
  DEFAULT_MAX_CHAT_SESSIONS,
  DEFAULT_MAX_SEEN_MESSAGES,
} from './chat-host-types.js';
import { FsmError } from './errors.js';
import { isRecord } from './snapshot.js';
import type { FlowSessionRefusal, StoredFlowSession } from './stored-session-types.js';

const EMPTY: ChatFlowLedger = { seen: [], effect: null };

/** A refusal thrown out of a callback's write so the whole turn ends with it. */
class Refused extends Error {
  constructor(
    readonly code: ChatFlowRefusalCode,
    reason: string,
    readonly original?: unknown,
  ) {
    super(reason);
  }
}

/**
 * Creates the host of a chat flow (a Telegram or Slack bot running a multi-step form): each reply is
 * read for the session's current step by `read`, submitted to its stored flow session, followed by
 * `after` (the step's effects) and the next question through `ask`. Replies of one session run one
 * at a time in call order; a message id seen before (kept in the record, so also after a restart) is
 * refused `duplicate`. Effects run through `ctx.effect(name, run)`: a claim is written before `run`
 * and marked done by the next write, so a claim found without `done` (the process stopped between
 * the effect and the save) is reported `outcome-unknown` and never run again by itself until
 * `resolveEffect`. A callback that throws ends the turn as `callback_failed` with what was written
 * kept. Use it instead of hand-writing this loop around {@link createFlowSessionStore}.
 *
 * @throws FsmError `invalid_options` when `maxSessions` or `maxSeenMessages` is not a positive integer.
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import { createChatFlowHost, createFlowSessionStore, defineFlow } from '@parley/fsm';
 * import { z } from 'zod';
 *
 * const flow = defineFlow({
 *   id: 'signup',
 *   version: 1,
 *   steps: [
 *     { name: 'email', prompt: 'Your email?', fields: z.object({ email: z.string().email() }) },
 *     { name: 'plan', prompt: 'Which plan?', fields: z.object({ plan: z.enum(['free', 'pro']) }) },
 *   ],
 * });
 * const clock = createManualClock({ now: 0 });
 * const sessions = createFlowSessionStore(flow, { store: createMemoryStore({ clock }), clock });
 * const sent: string[] = [];
 * const host = createChatFlowHost({
 *   sessions,
 *   clock,
 *   read: (text, ctx) => (ctx.session.step === 'email' ? { email: text } : { plan: text }),
 *   after: async (done, ctx) => {
 *     if (done.step === 'plan') await ctx.effect('welcome-mail', () => void sent.push('welcome'));
 *   },
 *   ask: (prompt) => void sent.push(prompt),
 * });
 * await host.start('chat_1', {});
 * await host.reply('chat_1', 'ada@example.org', { messageId: 'm1' });
 * await host.reply('chat_1', 'ada@example.org', { messageId: 'm1' }); // delivered twice: refused duplicate
 * await host.reply('chat_1', 'pro', { messageId: 'm2' });
 * console.log(sent); // [ 'Your email?', 'Which plan?', 'welcome' ]
 * ```
 */
export function createChatFlowHost<TStep extends string, TContext, TData>(
  options: ChatFlowHostOptions<TStep, TContext, TData>,
): ChatFlowHost<TData> {
  const { sessions } = options;
  const clock: Clock = options.clock ?? systemClock;
  const maxSessions = positive(options.maxSessions ?? DEFAULT_MAX_CHAT_SESSIONS, 'maxSessions');
  const maxSeen = positive(options.maxSeenMessages ?? DEFAULT_MAX_SEEN_MESSAGES, 'maxSeenMessages');
  type Session = StoredFlowSession<TStep, TContext, TData>;
  const events = createEmitter<ChatFlowHostEvents>();
  const open = new Map<string, Session>(); // in use order: the first is the least recently used
  const chains = new Map<string, Promise<unknown>>();
  let closed = false;

  interface Turn {
    session: Session;
    data: TData;
    ledger: ChatFlowLedger;
    written: ChatFlowLedger;
    asked: boolean;
    done: ChatEffectClaim | undefined;
    /** Claimed by the write that completed its step and not run yet. */
    claimed: ChatEffectClaim | undefined;
  }

  const refusal = (
    id: string,
    code: ChatFlowRefusalCode,
    reason: string,
    cause?: unknown,
  ): ChatFlowResult => {
    events.emit('refused', { id, code, reason, at: clock.now() });
    return { ok: false, id, code, reason, ...(cause === undefined ? {} : { cause }) };
  };

  function split(session: Session): { data: TData; ledger: ChatFlowLedger } {
    const raw = session.data;
    if (!isRecord(raw)) return { data: raw, ledger: EMPTY };
    const { chatFlow, ...data } = raw;
    // the ledger is the host's own JSON, written only by `stored` below
    const ledger =
      isRecord(chatFlow) && Array.isArray(chatFlow.seen) ? (chatFlow as unknown as ChatFlowLedger) : EMPTY;
    return { data: data as TData, ledger }; // the host's data is the record's data less `chatFlow`
  }

  const stored = (turn: Turn): TData => ({ ...turn.data, chatFlow: turn.ledger }) as TData; // data is a JSON object

  function turnOf(session: Session): Turn {
    const { data, ledger } = split(session);
    return { session, data, ledger, written: ledger, asked: false, done: undefined, claimed: undefined };
  }

  function committed(turn: Turn): void {
    turn.written = turn.ledger;
    const done = turn.done;
    turn.done = undefined;
    if (done !== undefined)
      events.emit('effect-done', { id: turn.session.id, ...pick(done), at: clock.now() });
  }

  function check<T extends { ok: boolean }>(
    turn: Turn,
    result: T | FlowSessionRefusal,
  ): T | FlowSessionRefusal {
    if (!result.ok && 'code' in result && (result.code === 'conflict' || result.code === 'stale'))
      forget(turn.session);
    return result;
  }

  function context(turn: Turn): ChatContext<TStep, TContext, TData> {
    const { session } = turn;
    const ctx: ChatContext<TStep, TContext, TData> = {
      id: session.id,
      session,
      get data() {
        return turn.data;
      },
      setData: (data) => {
        turn.data = data;
      },
      async submit(fields, more) {
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
        const written = check(turn, await session.submit(fields, { data, ...more }));
        if (!written.ok) {
          turn.ledger = before;
          return written;
        }
        committed(turn);
        if (!written.result.ok) return written;
        if (claim !== undefined) {
          turn.claimed = claim;
          events.emit('effect-claimed', { id: session.id, ...pick(claim), at: claim.claimedAt });
        }
        turn.asked = false;
        await options.after?.(done, ctx);
        if (claim !== undefined && turn.claimed === claim) release(turn, before);
        if (!turn.asked) await ctx.ask();
        return written;
      },
      async save() {
        const saved = check(turn, await session.update(stored(turn)));
        if (saved.ok) committed(turn);
        return saved;
      },
      async effect(name, run) {
        let claim = turn.claimed;
        turn.claimed = undefined;
        if (claim?.name !== name) {
          if (claim !== undefined) release(turn, { ...turn.ledger, effect: null });
          claim = await claimNow(turn, name);
        }
        let value: Awaited<ReturnType<typeof run>>;
        try {
          value = await run();
        } catch (error) {
          events.emit('outcome-unknown', { id: session.id, ...pick(claim), claimedAt: claim.claimedAt });
          throw error;
        }
        turn.ledger = { ...turn.ledger, effect: { ...claim, state: 'done', doneAt: clock.now() } };
        turn.done = claim;
        return value;
      },
      async ask() {
        turn.asked = true;
        const prompt = session.prompt;
        if (prompt !== undefined && options.ask) await options.ask(prompt, ctx);
      },
    };
    return ctx;
  }

  /** Writes a claim of effect `name` before it runs; refused while an earlier outcome is unknown. */
  async function claimNow(turn: Turn, name: string): Promise<ChatEffectClaim> {
    const earlier = turn.ledger.effect;
    if (earlier?.state === 'running') {
      throw new Refused('outcome_unknown', `the outcome of ${earlier.name} (${earlier.step}) is unknown`);
    }
    const { session } = turn;
    const at = clock.now();
    const claim: ChatEffectClaim = {
      ...{ name, step: session.step, part: session.snapshot().part },
      ...{ state: 'running', claimedAt: at, doneAt: null },
    };
    const before = turn.ledger;
    turn.ledger = { ...turn.ledger, effect: claim };
    const saved = await context(turn).save();
    if (!saved.ok) {
      turn.ledger = before;
      throw new Refused(saved.code, saved.reason, saved.cause);
    }
    events.emit('effect-claimed', { id: session.id, ...pick(claim), at });
    return claim;
  }

  /** Drops a claim made on completion that `after` did not use: the next write clears it. */
  function release(turn: Turn, ledger: ChatFlowLedger): void {
    turn.claimed = undefined;
    turn.ledger = { ...turn.ledger, effect: ledger.effect };
  }

  /** Runs `task` after every earlier task of session `id`; a throw or refusal becomes the result. */
  function serialize(id: string, task: () => Promise<ChatFlowResult>): Promise<ChatFlowResult> {
    const previous = chains.get(id) ?? Promise.resolve();
    const run = previous.then(async () => {
      if (closed) return refusal(id, 'closed', 'the chat-flow host was closed');
      try {
        return await task();
      } catch (error) {
        if (error instanceof Refused) return refusal(id, error.code, error.message, error.original);
        const reason = error instanceof Error ? error.message : String(error);
        return refusal(id, 'callback_failed', `a callback failed: ${reason}`, error);
      }
    });
    chains.set(id, run);
    void run.then(() => {
      if (chains.get(id) === run) chains.delete(id);
    });
    return run;
  }

  function remember(session: Session): boolean {
    forget(open.get(session.id));
    if (open.size >= maxSessions) {
      const idle = [...open.keys()].find((key) => !chains.has(key));
      if (idle === undefined) return false;
      forget(open.get(idle));
    }
    open.set(session.id, session);
    options.attach?.(session);
    return true;
  }

  function forget(session: Session | undefined): void {
    if (session === undefined || open.get(session.id) !== session) return;
    open.delete(session.id);
    session.close();
  }

  async function load(id: string): Promise<Session> {
    const known = open.get(id);
    if (known !== undefined) {
      open.delete(id);
      open.set(id, known); // most recently used last
      return known;
    }
    const resumed = await sessions.resume(id);
    if (!resumed.ok) throw new Refused(resumed.code, resumed.reason, resumed.cause);
    if (!remember(resumed.session)) throw tooMany();
    return resumed.session;
  }

  const tooMany = (): Refused =>
    new Refused('too_many_sessions', `${maxSessions} sessions are open and busy`);

  async function finish(turn: Turn): Promise<ChatFlowResult> {
    if (turn.ledger !== turn.written || turn.done !== undefined) {
      const saved = await context(turn).save();
      if (!saved.ok) throw new Refused(saved.code, saved.reason, saved.cause);
    }
    const { session } = turn;
    return { ok: true, id: session.id, step: session.step, version: session.version };
  }

  async function begin(turn: Turn, how: 'start' | 'resume'): Promise<ChatFlowResult> {
    const ctx = context(turn);
    events.emit('opened', { id: ctx.id, version: turn.session.version, resumed: how === 'resume' });
    const effect = turn.ledger.effect;
    if (how === 'resume' && effect?.state === 'running') {
      events.emit('outcome-unknown', { id: ctx.id, ...pick(effect), claimedAt: effect.claimedAt });
    }
    const answer = options.begin ? await options.begin(ctx, how) : undefined;
    if (answer !== false && !turn.asked) await ctx.ask();
    return finish(turn);
  }

  return {
    start: (id, data) =>
      serialize(id, async () => {
        const started = await sessions.start(id, { data });
        if (!started.ok) throw new Refused(started.code, started.reason, started.cause);
        if (!remember(started.session)) throw tooMany();
        return begin(turnOf(started.session), 'start');
      }),
    open: (id) =>
      serialize(id, async () => {
        forget(open.get(id));
        return begin(turnOf(await load(id)), 'resume');
      }),
    reply: (id, text, more = {}) =>
      serialize(id, async () => {
        const turn = turnOf(await load(id));
        const { messageId } = more;
        if (messageId !== undefined) {
          if (turn.ledger.seen.includes(messageId)) {
            events.emit('duplicate', { id, messageId, at: clock.now() });
            return refusal(id, 'duplicate', `message ${messageId} was processed before`);
          }
          turn.ledger = { ...turn.ledger, seen: [...turn.ledger.seen, messageId].slice(-maxSeen) };
        }
        const ctx = context(turn);
        const fields = await options.read(text, ctx);
        if (fields !== undefined) {
          const written = await ctx.submit(fields);
          if (!written.ok) throw new Refused(written.code, written.reason, written.cause);
        }
        return finish(turn);
      }),
    resolveEffect: (id, outcome) =>
      serialize(id, async () => {
        const turn = turnOf(await load(id));
        const effect = turn.ledger.effect;
        if (effect?.state !== 'running')
          return refusal(id, 'not_claimed', `no effect of ${id} has an unknown outcome`);
        const done: ChatEffectClaim = { ...effect, state: 'done', doneAt: clock.now() };
        turn.ledger = { ...turn.ledger, effect: outcome === 'done' ? done : null };
        return finish(turn);
      }),
    get size() {
      return open.size;
    },
    on: (event, listener) => events.on(event, listener),
    close() {
      closed = true;
      for (const session of [...open.values()]) forget(session);
    },
  };
}

const pick = (claim: ChatEffectClaim) => ({ name: claim.name, step: claim.step, part: claim.part });

function positive(value: number, option: string): number {
  if (Number.isSafeInteger(value) && value >= 1) return value;
  throw new FsmError('invalid_options', `${option} must be a positive integer, not ${value}`, {
    details: { option },
  });
}
