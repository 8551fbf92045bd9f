// The scripted scenarios, one per behaviour of the reference design, as data: each starts from a
// fresh shop schema and a fresh bot; alice asks for something, and alice (the requester), bob
// (another member of the group), carol (in another chat) and the clock do the rest.
import { DEFAULT_CONFIRM_TIMEOUT_MS } from '@parley/confirm';
import type { Driver } from './driver.js';

export const ALICE = 'alice';
export const BOB = 'bob';
export const CAROL = 'carol';
/** A second group chat, for the scenario with two sessions side by side. */
export const FINANCE_CHAT = 'oc_finance';

/** One step of a scenario: something a person, the clock or the host does, or a wait. */
export type Step = (driver: Driver) => unknown;

function say(user: string, text: string, chatId?: string): Step {
  return (d) => d.say(user, text, chatId);
}
function click(user: string, label: RegExp): Step {
  return (d) => d.click(user, label);
}
const prompt: Step = (d) => d.waitForPrompt();
const settle: Step = (d) => d.settle();
// @parley/confirm's default: 5 minutes.
const timeout: Step = (d) => d.pass(DEFAULT_CONFIRM_TIMEOUT_MS, '5 minutes pass without an answer');
// Answers within the gate's afterDecisionMs (30 s) still count as late answers to the timed-out
// confirmation; a minute later a 确认 is ordinary chat.
const aMinute: Step = (d) => d.pass(60_000, 'a minute later');
const confirmationOff: Step = (d) => d.requireConfirmation(false);
const restart: Step = (d) => d.restart();
const resumed: Step = (d) => d.waitForResumed();

export interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly steps: readonly Step[];
}

export const SCENARIOS = [
  {
    name: 'select',
    title: 'A SELECT runs at once: no prompt, no card',
    steps: [say(ALICE, '查一下未完成的订单'), settle],
  },
  {
    name: 'delete-confirmed',
    title: 'A DELETE waits; the requester replies 确认; the row is gone',
    steps: [say(ALICE, '删除 3 号订单'), prompt, say(ALICE, '确认'), settle],
  },
  {
    name: 'update-cancelled',
    title: 'An UPDATE waits; the requester replies 取消; the table is unchanged',
    steps: [say(ALICE, '把 2 号订单标记为 paid'), prompt, say(ALICE, '取消'), settle],
  },
  {
    name: 'other-member',
    title: "Another member's 确认 is not counted and reaches the agent as chat; the requester's executes",
    steps: [say(ALICE, '删除 3 号订单'), prompt, say(BOB, '确认'), say(ALICE, '确认'), settle],
  },
  {
    name: 'timeout',
    title: 'Silence: the confirmation times out, the DELETE is cancelled; a late 确认 is just chat',
    steps: [say(ALICE, '删除 4 号订单'), prompt, timeout, settle, aMinute, say(ALICE, '确认'), settle],
  },
  {
    name: 'card-ddl',
    title: "A CREATE INDEX waits; bob's card click is refused; the requester's click confirms it",
    steps: [say(ALICE, '给 customer 列建索引'), prompt, click(BOB, /^确认/), click(ALICE, /^确认/), settle],
  },
  {
    name: 'ambiguous',
    title: "Ambiguous replies («确认取消», «yes please don't») cancel",
    steps: [
      ...[say(ALICE, '把 2 号订单标记为 paid'), prompt, say(ALICE, '确认取消'), settle],
      ...[say(ALICE, '删除 4 号订单'), prompt, say(ALICE, "yes please don't"), settle],
    ],
  },
  {
    name: 'no-confirmation',
    title: 'safety.require_confirmation off: the DELETE runs at once, without a prompt',
    steps: [confirmationOff, say(ALICE, '删除 3 号订单'), settle],
  },
  {
    name: 'two-chats',
    title: "Two chats side by side; alice's 确认 in the other chat answers nothing there or here",
    steps: [
      ...[say(ALICE, '删除 3 号订单'), prompt, say(CAROL, '把 2 号订单标记为 paid', FINANCE_CHAT), prompt],
      ...[say(ALICE, '确认', FINANCE_CHAT), say(CAROL, '确认', FINANCE_CHAT), say(ALICE, '确认'), settle],
    ],
  },
  {
    name: 'restart',
    title: 'The bot restarts with a DELETE awaiting 确认; the confirmation survives and is answered after',
    steps: [say(ALICE, '删除 3 号订单'), prompt, restart, say(ALICE, '确认'), resumed, settle],
  },
] as const satisfies readonly Scenario[];

export type ScenarioName = (typeof SCENARIOS)[number]['name'];
export const SCENARIO_NAMES: readonly ScenarioName[] = SCENARIOS.map((scenario) => scenario.name);

/** Runs a scenario's steps in order. */
export async function runSteps(scenario: Scenario, driver: Driver): Promise<void> {
  for (const step of scenario.steps) await step(driver);
}
