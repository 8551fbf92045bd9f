// The scripted scenarios, one per behaviour of the reference design. Each starts from a fresh
// shop schema and a fresh bot; alice asks for something, and alice (the requester), bob (another
// member of the group) and the clock do the rest.
import { DEFAULT_CONFIRM_TIMEOUT_MS } from '@parley/confirm';
import type { Driver } from './driver.js';

export const ALICE = 'alice';
export const BOB = 'bob';
export const CAROL = 'carol';
/** A second group chat, for the scenario with two sessions side by side. */
export const FINANCE_CHAT = 'oc_finance';

export const SCENARIO_NAMES = [
  'select',
  'delete-confirmed',
  'update-cancelled',
  'other-member',
  'timeout',
  'card-ddl',
  'ambiguous',
  'no-confirmation',
  'two-chats',
  'restart',
] as const;

export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export interface Scenario {
  readonly name: ScenarioName;
  readonly title: string;
  run(driver: Driver, timeoutMs: number): Promise<void>;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'select',
    title: 'A SELECT runs at once: no prompt, no card',
    async run(d) {
      await d.say(ALICE, '查一下未完成的订单');
      await d.settle();
    },
  },
  {
    name: 'delete-confirmed',
    title: 'A DELETE waits; the requester replies 确认; the row is gone',
    async run(d) {
      await d.say(ALICE, '删除 3 号订单');
      await d.waitForPrompt();
      await d.say(ALICE, '确认');
      await d.settle();
    },
  },
  {
    name: 'update-cancelled',
    title: 'An UPDATE waits; the requester replies 取消; the table is unchanged',
    async run(d) {
      await d.say(ALICE, '把 2 号订单标记为 paid');
      await d.waitForPrompt();
      await d.say(ALICE, '取消');
      await d.settle();
    },
  },
  {
    name: 'other-member',
    title: "Another member's 确认 is not counted and reaches the agent as chat; the requester's executes",
    async run(d) {
      await d.say(ALICE, '删除 3 号订单');
      await d.waitForPrompt();
      await d.say(BOB, '确认');
      await d.say(ALICE, '确认');
      await d.settle();
    },
  },
  {
    name: 'timeout',
    title: 'Silence: the confirmation times out, the DELETE is cancelled; a late 确认 is just chat',
    async run(d, timeoutMs) {
      await d.say(ALICE, '删除 4 号订单');
      await d.waitForPrompt();
      d.pass(timeoutMs, `${Math.round(timeoutMs / 60_000)} minutes pass without an answer`);
      await d.settle();
      // Answers within the gate's afterDecisionMs (30 s) are still absorbed as answers to the
      // timed-out confirmation; a minute later a 确认 is ordinary chat.
      d.pass(60_000, 'a minute later');
      await d.say(ALICE, '确认');
      await d.settle();
    },
  },
  {
    name: 'card-ddl',
    title: "A CREATE INDEX waits; bob's card click is refused; the requester's click confirms it",
    async run(d) {
      await d.say(ALICE, '给 customer 列建索引');
      await d.waitForPrompt();
      await d.click(BOB, /^确认/);
      await d.click(ALICE, /^确认/);
      await d.settle();
    },
  },
  {
    name: 'ambiguous',
    title: "Ambiguous replies («确认取消», «yes please don't») cancel",
    async run(d) {
      await d.say(ALICE, '把 2 号订单标记为 paid');
      await d.waitForPrompt();
      await d.say(ALICE, '确认取消');
      await d.settle();
      await d.say(ALICE, '删除 4 号订单');
      await d.waitForPrompt();
      await d.say(ALICE, "yes please don't");
      await d.settle();
    },
  },
  {
    name: 'no-confirmation',
    title: 'safety.require_confirmation off: the DELETE runs at once, without a prompt',
    async run(d) {
      await d.requireConfirmation(false);
      await d.say(ALICE, '删除 3 号订单');
      await d.settle();
    },
  },
  {
    name: 'two-chats',
    title: "Two chats side by side; alice's 确认 in the other chat answers nothing there or here",
    async run(d) {
      await d.say(ALICE, '删除 3 号订单');
      await d.waitForPrompt();
      await d.say(CAROL, '把 2 号订单标记为 paid', FINANCE_CHAT);
      await d.waitForPrompt();
      await d.say(ALICE, '确认', FINANCE_CHAT);
      await d.say(CAROL, '确认', FINANCE_CHAT);
      await d.say(ALICE, '确认');
      await d.settle();
    },
  },
  {
    name: 'restart',
    title: 'The bot restarts with a DELETE awaiting 确认; the confirmation survives and is answered after',
    async run(d) {
      await d.say(ALICE, '删除 3 号订单');
      await d.waitForPrompt();
      await d.restart();
      await d.say(ALICE, '确认');
      await d.waitForResumed();
      await d.settle();
    },
  },
];

export const DEFAULT_TIMEOUT_MS = DEFAULT_CONFIRM_TIMEOUT_MS;
