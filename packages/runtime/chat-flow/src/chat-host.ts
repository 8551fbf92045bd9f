import { type Clock, createEmitter, systemClock } from '@parley/core';
import { contextOf, finishTurn, openTurn, pick, Refused, type TurnHost } from './chat-host-turn.js';
import type {
  ChatFlowHost,
  ChatFlowHostEvents,
  ChatFlowHostOptions,
  ChatFlowRefusalCode,
  ChatFlowResult,
} from './chat-host-types.js';
import {
  DEFAULT_MAX_CHAT_SESSIONS,
  DEFAULT_MAX_SEEN_MESSAGES,
  DEFAULT_TURN_LEASE_MS,
  MAX_MESSAGE_ID_LENGTH,
} from './chat-host-limits.js';
import { ChatFlowError } from './errors.js';
import type { StoredFlowSession } from './stored-session-types.js';

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
 * @throws ChatFlowError `invalid_argument` when `maxSessions` or `maxSeenMessages` is not a positive integer.
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import { defineFlow } from '@parley/fsm';
 * import { createChatFlowHost, createFlowSessionStore } from '@parley/chat-flow';
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
  const turnLeaseMs = positive(options.turnLeaseMs ?? DEFAULT_TURN_LEASE_MS, 'turnLeaseMs');
  type Session = StoredFlowSession<TStep, TContext, TData>;
  const events = createEmitter<ChatFlowHostEvents>();
  const open = new Map<string, Session>(); // in use order: the first is the least recently used
  const chains = new Map<string, Promise<unknown>>();
  let closed = false;
  const host: TurnHost<TStep, TContext, TData> = { options, clock, events };

  function refusal(id: string, code: ChatFlowRefusalCode, message: string, cause?: unknown): ChatFlowResult {
    events.emit('refused', { id, code, message, reason: message, at: clock.now() });
    return { ok: false, id, code, message, reason: message, ...(cause === undefined ? {} : { cause }) };
  }

  /** Runs `task` after every earlier task of session `id`; a throw or refusal becomes the result. */
  function serialize(id: string, task: () => Promise<ChatFlowResult>): Promise<ChatFlowResult> {
    const run = (chains.get(id) ?? Promise.resolve()).then(async () => {
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

  function remember(session: Session): void {
    if (open.size >= maxSessions) {
      let idle: string | undefined; // the least recently used session without a turn running
      for (const key of open.keys()) {
        if (chains.has(key)) continue;
        idle = key;
        break;
      }
      if (idle === undefined) {
        session.close();
        throw new Refused('too_many_sessions', `${maxSessions} sessions are open and busy`);
      }
      forget(open.get(idle));
    }
    open.set(session.id, session);
    options.attach?.(session);
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
    if (!resumed.ok) throw new Refused(resumed.code, resumed.message, resumed.cause);
    remember(resumed.session);
    return resumed.session;
  }

  /**
   * Runs one turn on `session` under its lease: the handle first reads the committed record (never
   * what an earlier turn left in it), every write of the turn is fenced, and the lease is given back.
   */
  async function held(session: Session, run: () => Promise<ChatFlowResult>): Promise<ChatFlowResult> {
    const taken = await session.acquire({ ttlMs: turnLeaseMs });
    if (!taken.ok) {
      forget(session);
      throw new Refused(taken.code, taken.message, taken.cause);
    }
    let result: ChatFlowResult;
    try {
      result = await run();
    } finally {
      await session.release();
    }
    return result.ok ? { ...result, version: session.version } : result; // as the turn left the record
  }

  async function begin(session: Session, how: 'start' | 'resume'): Promise<ChatFlowResult> {
    const turn = openTurn(session);
    const ctx = contextOf(turn, host);
    events.emit('opened', { id: ctx.id, version: session.version, resumed: how === 'resume' });
    const effect = turn.ledger.effect;
    if (how === 'resume' && effect?.state === 'running') {
      events.emit('outcome-unknown', { id: ctx.id, ...pick(effect), claimedAt: effect.claimedAt });
    }
    const answer = options.begin ? await options.begin(ctx, how) : undefined;
    if (answer !== false && !turn.asked) await ctx.ask();
    return finishTurn(turn, host);
  }

  /** A reply's turn: a message id seen before is a duplicate; the reply is read and submitted. */
  async function answer(session: Session, text: string, messageId: string | undefined) {
    const id = session.id;
    const turn = openTurn(session);
    if (messageId !== undefined) {
      if (turn.ledger.seen.includes(messageId)) {
        events.emit('duplicate', { id, messageId, at: clock.now() });
        return refusal(id, 'duplicate', `message ${messageId} was processed before`);
      }
      turn.ledger = { ...turn.ledger, seen: [...turn.ledger.seen, messageId].slice(-maxSeen) };
    }
    const ctx = contextOf(turn, host);
    const fields = await options.read(text, ctx);
    if (fields !== undefined) {
      const written = await ctx.submit(fields);
      if (!written.ok) throw new Refused(written.code, written.message, written.cause);
    }
    return finishTurn(turn, host);
  }

  /** Settles an effect whose outcome is unknown: `done` keeps it, `not_done` clears it. */
  async function settleEffect(session: Session, outcome: 'done' | 'not_done') {
    const turn = openTurn(session);
    const effect = turn.ledger.effect;
    if (effect?.state !== 'running') {
      return refusal(session.id, 'not_claimed', `no effect of ${session.id} has an unknown outcome`);
    }
    const done = { ...effect, state: 'done' as const, doneAt: clock.now() };
    turn.ledger = { ...turn.ledger, effect: outcome === 'done' ? done : null };
    return finishTurn(turn, host);
  }

  return {
    start: (id, data) =>
      serialize(id, async () => {
        const started = await sessions.start(id, { data });
        if (!started.ok) throw new Refused(started.code, started.message, started.cause);
        forget(open.get(id));
        remember(started.session);
        return held(started.session, () => begin(started.session, 'start'));
      }),
    open: (id) =>
      serialize(id, async () => {
        forget(open.get(id));
        const session = await load(id);
        return held(session, () => begin(session, 'resume'));
      }),
    reply: (id, text, more = {}) =>
      serialize(id, async () => {
        const { messageId } = more;
        if (
          messageId !== undefined &&
          (typeof messageId !== 'string' || messageId === '' || messageId.length > MAX_MESSAGE_ID_LENGTH)
        ) {
          return refusal(
            id,
            'invalid_message_id',
            `A message id is a string of 1…${MAX_MESSAGE_ID_LENGTH} characters`,
          );
        }
        const session = await load(id);
        return held(session, () => answer(session, text, messageId));
      }),
    resolveEffect: (id, outcome) =>
      serialize(id, async () => {
        const session = await load(id);
        return held(session, () => settleEffect(session, outcome));
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

function positive(value: number, option: string): number {
  if (Number.isSafeInteger(value) && value >= 1) return value;
  throw new ChatFlowError('invalid_argument', `${option} must be a positive integer, not ${value}`, {
    details: { option },
  });
}
