import { type Clock, createChurnMap, createEmitter, systemClock } from '@parley/core';
import { OpenSessions } from './chat-host-open.js';
import {
  DONE,
  forget,
  type HostState,
  held,
  load,
  refusal,
  remember,
  serialize,
} from './chat-host-sessions.js';
import { begin, reply, settleEffect } from './chat-host-steps.js';
import { Refused } from './chat-host-turn.js';
import type { ChatFlowHost, ChatFlowHostEvents, ChatFlowHostOptions } from './chat-host-types.js';
import {
  DEFAULT_MAX_CHAT_SESSIONS,
  DEFAULT_MAX_DECODED_SESSIONS,
  DEFAULT_MAX_SEEN_MESSAGES,
  DEFAULT_TURN_LEASE_MS,
  MAX_MESSAGE_ID_LENGTH,
} from './chat-host-limits.js';
import { ChatFlowError } from './errors.js';
import { StoredSession } from './stored-session.js';
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
 * @throws ChatFlowError `invalid_argument` when `maxSessions`, `maxDecodedSessions`, `maxSeenMessages`
 * or `turnLeaseMs` is not a positive integer.
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
  const clock: Clock = options.clock ?? systemClock;
  const chains = createChurnMap<string, Promise<unknown>>(); // sessions come and go
  const decoded = positive(options.maxDecodedSessions ?? DEFAULT_MAX_DECODED_SESSIONS, 'maxDecodedSessions');
  const state: HostState<TStep, TContext, TData> = {
    options,
    clock,
    events: createEmitter<ChatFlowHostEvents>(),
    sessions: options.sessions,
    maxSessions: positive(options.maxSessions ?? DEFAULT_MAX_CHAT_SESSIONS, 'maxSessions'),
    maxSeen: positive(options.maxSeenMessages ?? DEFAULT_MAX_SEEN_MESSAGES, 'maxSeenMessages'),
    turnLeaseMs: positive(options.turnLeaseMs ?? DEFAULT_TURN_LEASE_MS, 'turnLeaseMs'),
    // a session that falls out of the most recently used keeps its record as text, when idle
    open: new OpenSessions(decoded, (session) => {
      if (!state.busy(session.id)) compactSession(session);
    }),
    chains,
    busy: (id) => {
      const chain = chains.get(id);
      return chain !== undefined && chain !== DONE;
    },
    closed: false,
  };
  const { open, events } = state;

  return {
    start: (id, data) =>
      serialize(state, id, () =>
        state.sessions.start(id, { data }).then((started) => {
          if (!started.ok) throw new Refused(started.code, started.message, started.cause);
          forget(state, open.get(id));
          remember(state, started.session);
          // the create is the turn's only write unless `begin` runs: there is nothing to read or hold
          if (options.begin === undefined) return begin(state, started.session, 'start', false);
          return held(state, started.session, () => begin(state, started.session, 'start'));
        }),
      ),
    open: (id) =>
      serialize(state, id, async () => {
        forget(state, open.get(id));
        const session = await load(state, id); // nothing is open: a read
        return held(state, session, () => begin(state, session, 'resume'));
      }),
    reply: (id, text, more = {}) =>
      // no async frame of its own: an open session's reply starts at once, its promise returned as it is
      serialize(state, id, () => {
        const { messageId } = more;
        if (
          messageId !== undefined &&
          (typeof messageId !== 'string' || messageId === '' || messageId.length > MAX_MESSAGE_ID_LENGTH)
        ) {
          return refusal(
            state,
            id,
            'invalid_message_id',
            `A message id is a string of 1…${MAX_MESSAGE_ID_LENGTH} characters`,
          );
        }
        const loaded = load(state, id);
        if (loaded instanceof Promise)
          return loaded.then((session) => reply(state, session, text, messageId));
        return reply(state, loaded, text, messageId);
      }),
    resolveEffect: (id, outcome) =>
      serialize(state, id, async () => {
        const session = await load(state, id);
        return held(state, session, () => settleEffect(state, session, outcome));
      }),
    get size() {
      return open.size;
    },
    on: (event, listener) => events.on(event, listener),
    close() {
      state.closed = true;
      for (const session of open.values()) forget(state, session);
    },
  };
}

function positive(value: number, option: string): number {
  if (Number.isSafeInteger(value) && value >= 1) return value;
  throw new ChatFlowError('invalid_argument', `${option} must be a positive integer, not ${value}`, {
    details: { option },
  });
}

/** Lets an idle session of this package's store keep its record as text (another store's handle is left as it is). */
function compactSession<TStep extends string, TContext, TData>(
  session: StoredFlowSession<TStep, TContext, TData>,
): void {
  if (session instanceof StoredSession) session.compact();
}
