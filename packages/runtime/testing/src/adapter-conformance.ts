import type { InboundMessage } from '@parley/bus';
import { createMemoryStore, type Store } from '@parley/core';
import type {
  AdapterConformanceCase,
  AdapterConformanceSubject,
  AdapterProcess,
  ConformanceDecision,
  ConformanceGate,
} from './adapter-conformance-types.js';
import { checksFor } from './internal/check.js';

export type {
  AdapterConformanceCase,
  AdapterConformanceSubject,
  AdapterProcess,
  ConformanceDecision,
  ConformanceDelivery,
  ConformanceGate,
  ConformanceGateOptions,
  ConformanceUser,
} from './adapter-conformance-types.js';

const { check, equal } = checksFor('Adapter conformance');
const ACTION = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } } as const;

/**
 * Lists the checks a chat-platform adapter passes when it carries the channel-confirmation seed
 * end to end: the prompt card is sent to the chat the request came from; "确认" from the requester
 * executes once; another member's click is refused and the requester's counts; a redelivered reply
 * or click changes nothing; the requester's cancel button cancels; a restart (a new process, bus
 * and gate on the same store) keeps the pending confirmation and resumes it on the reply.
 *
 * The Telegram, Slack, Feishu and DingTalk adapters run them against the real platform library
 * and a loopback stand-in of the platform (`@parley/testing/loopback`); an adapter for another
 * platform runs them the same way: each case is a name and an async function that throws on
 * failure, so `it(c.name, () => c.run(make))` runs them all.
 *
 * @example
 * ```ts
 * import { createConfirmGate } from '@parley/confirm';
 * import { createManualClock } from '@parley/core';
 * import { adapterConformanceCases, createFakeChannel, type AdapterConformanceSubject } from '@parley/testing';
 * import { createHygieneInterceptor, createMessageBus } from '@parley/bus';
 *
 * // A fake channel stands in for a platform here; a real adapter starts its library against a stand-in.
 * async function make(): Promise<AdapterConformanceSubject> {
 *   const clock = createManualClock({ now: Date.UTC(2026, 0, 1) });
 *   const channel = createFakeChannel({ channel: 'fake', clock });
 *   let stopped = true;
 *   const sender = { requester: 'alice', other: 'mallory' } as const;
 *   return {
 *     clock,
 *     createGate: (options) => createConfirmGate(options),
 *     close: async () => {},
 *     async start() {
 *       const bus = createMessageBus({ clock });
 *       bus.intercept(createHygieneInterceptor());
 *       await bus.attach(channel);
 *       stopped = false;
 *       const deliver = async (send: () => Promise<unknown>) => {
 *         await send();
 *         return { redeliver: async () => void (stopped || (await send())) };
 *       };
 *       return {
 *         bus,
 *         text: (user, text, at) => deliver(() => channel.deliver({ chatId: 'g1', senderId: sender[user], text, eventId: `t-${at}`, createdAt: at })),
 *         click: (user, button, at) => {
 *           const value = channel.buttons('g1').find((b) => (button === 'confirm' ? /确认/ : /取消/).test(b.label))?.value ?? {};
 *           return deliver(() => channel.deliver({ chatId: 'g1', senderId: sender[user], kind: 'card_action', action: value, eventId: `c-${user}-${at}`, createdAt: at }));
 *         },
 *         prompts: () => channel.sent.filter((m) => m.card !== undefined).length,
 *         stop: async () => { stopped = true; await bus.close(); },
 *       };
 *     },
 *   };
 * }
 *
 * for (const check of adapterConformanceCases()) await check.run(make); // throws on a broken flow
 * console.log(adapterConformanceCases().length); // 6
 * ```
 */
export function adapterConformanceCases(): readonly AdapterConformanceCase[] {
  return CASES;
}

/** A running bot with its gate, and how the case asks for the action. */
interface Session {
  readonly subject: AdapterConformanceSubject;
  readonly store: Store;
  bot: AdapterProcess;
  gate: ConformanceGate;
  /** The requester's `/purge` message as the bus handed it on. */
  readonly asked: InboundMessage;
  /** The pending decision and how many prompt cards were there before it. */
  readonly decision: Promise<ConformanceDecision>;
  executed: number;
  /** The tool's side: runs (counts) only on an authorised decision. */
  purge(decision: ConformanceDecision): Promise<void>;
}

/** Starts the subject, a bot and a gate, and asks for the action; stops everything after `body`. */
async function withRequest(
  make: () => Promise<AdapterConformanceSubject>,
  body: (session: Session) => Promise<void>,
): Promise<void> {
  const subject = await make();
  const { clock } = subject;
  const store = createMemoryStore({ clock });
  const bot = await subject.start();
  const gate = subject.createGate({ bus: bot.bus, clock, store });
  try {
    await gate.ready;
    await bot.text('requester', '/purge', clock.now());
    const asked = await bot.bus.receiveInbound();
    const before = bot.prompts();
    const prompted = new Promise<void>((resolve) => {
      const off = gate.on('prompted', () => {
        off();
        resolve();
      });
    });
    const decision = gate.request({
      sessionKey: asked.sessionKey,
      requester: asked.senderId,
      action: ACTION,
      summary: ACTION.args.sql,
    });
    await prompted;
    equal(bot.prompts(), before + 1, 'the prompt cards the stand-in received after the request');
    clock.advance(2_000); // replies come in a later second than the prompt
    const session: Session = {
      subject,
      store,
      bot,
      gate,
      asked,
      decision,
      executed: 0,
      async purge(settled) {
        if ((await session.gate.authorize(settled.id, ACTION)).ok) session.executed++;
      },
    };
    try {
      await body(session);
    } finally {
      await session.gate.close();
      await session.bot.stop();
    }
  } finally {
    await gate.close();
    await subject.close();
  }
}

const CASES: readonly AdapterConformanceCase[] = [
  {
    name: 'sends one prompt card to the chat the request came from',
    run: (make) =>
      withRequest(make, async ({ asked, gate }) => {
        check(asked.senderId !== '' && asked.sessionKey !== '', 'a sender and a session on the request');
        equal(gate.pending().length, 1, 'the pending confirmations');
      }),
  },
  {
    name: 'executes once on the requester’s 确认, and a redelivered reply changes nothing',
    run: (make) =>
      withRequest(make, async (s) => {
        const reply = await s.bot.text('requester', '确认', s.subject.clock.now());
        const settled = await s.decision;
        equal(settled.outcome, 'confirmed', 'the outcome');
        equal(settled.decidedBy, s.asked.senderId, 'who decided');
        await s.purge(settled);
        const prompts = s.bot.prompts();
        await reply.redeliver();
        await s.purge(settled);
        equal(s.executed, 1, 'how many times the action ran');
        equal(s.bot.prompts(), prompts, 'the prompt cards after the redelivery');
        equal(s.bot.bus.size.inbound, 0, 'inbound messages left for the agent');
      }),
  },
  {
    name: 'refuses another member’s click and counts the requester’s',
    run: (make) =>
      withRequest(make, async (s) => {
        const refused: { code: string; senderId: string }[] = [];
        s.gate.on('refused', (event) => refused.push(event));
        await s.bot.click('other', 'confirm', s.subject.clock.now());
        equal(refused.length, 1, 'the refused clicks');
        equal(refused[0]?.code, 'not_allowed', 'the refusal code');
        check(refused[0]?.senderId !== s.asked.senderId, 'the refused click to be the other member’s');
        equal(s.gate.pending().length, 1, 'the pending confirmations after the refusal');
        await s.bot.click('requester', 'confirm', s.subject.clock.now());
        const settled = await s.decision;
        equal([settled.outcome, settled.reason], ['confirmed', 'card'], 'the decision');
        await s.purge(settled);
        equal(s.executed, 1, 'how many times the action ran');
      }),
  },
  {
    name: 'changes nothing when a click is delivered again',
    run: (make) =>
      withRequest(make, async (s) => {
        let decided = 0;
        s.gate.on('decided', () => decided++);
        const click = await s.bot.click('requester', 'confirm', s.subject.clock.now());
        const settled = await s.decision;
        await s.purge(settled);
        await click.redeliver();
        await s.purge(settled);
        equal(decided, 1, 'the decisions');
        equal(s.executed, 1, 'how many times the action ran');
        equal(s.bot.bus.size.inbound, 0, 'inbound messages left for the agent');
      }),
  },
  {
    name: 'cancels on the requester’s cancel button',
    run: (make) =>
      withRequest(make, async (s) => {
        await s.bot.click('requester', 'cancel', s.subject.clock.now());
        const settled = await s.decision;
        equal(settled.outcome, 'cancelled', 'the outcome');
        await s.purge(settled);
        equal(s.executed, 0, 'how many times the action ran');
      }),
  },
  {
    name: 'keeps the pending confirmation across a restart and resumes it on the reply',
    run: (make) =>
      withRequest(make, async (s) => {
        await s.gate.close();
        equal((await s.decision).outcome, 'aborted', 'the first process’s decision when its gate closed');
        await s.bot.stop();
        const { clock } = s.subject;
        s.bot = await s.subject.start();
        const resumed: ConformanceDecision[] = [];
        s.gate = s.subject.createGate({
          bus: s.bot.bus,
          clock,
          store: s.store,
          resume: { [ACTION.name]: (decision) => void resumed.push(decision) },
        });
        await s.gate.ready;
        const pending = s.gate.pending();
        equal(
          pending.map((p) => [p.restored, p.requester]),
          [[true, s.asked.senderId]],
          'the restored confirmations',
        );
        const decided = new Promise<void>((resolve) => s.gate.on('decided', resolve));
        clock.advance(1_000);
        await s.bot.text('requester', '确认', clock.now());
        await decided;
        equal(
          resumed.map((d) => d.outcome),
          ['confirmed'],
          'the decisions handed to the resume handler',
        );
        for (const decision of resumed) await s.purge(decision);
        equal(s.executed, 1, 'how many times the action ran');
        equal(s.bot.bus.size.inbound, 0, 'inbound messages left for the agent');
      }),
  },
];
