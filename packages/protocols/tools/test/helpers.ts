import {
  type ChannelAdapter,
  createMessageBus,
  type DeliverInbound,
  type MessageBus,
  type OutboundMessage,
} from '@parley/bus';
import { type ConfirmGate, type ConfirmGateOptions, createConfirmGate } from '@parley/confirm';
import {
  createManualClock,
  createSequentialIds,
  type JsonValue,
  type ManualClock,
  type Store,
} from '@parley/core';
import { z } from 'zod';
import { defineTool } from '../src/index.js';

/** The turn context the host hands the gate: the machine state and the settings snapshot. */
export interface TurnContext {
  readonly state: 'exploring' | 'combat' | 'cutscene';
  readonly settings: {
    readonly 'tools.hp_delta_enabled': boolean;
    readonly 'rules.hp_zero_ends_game': boolean;
  };
}

export const EXPLORING: TurnContext = {
  state: 'exploring',
  settings: { 'tools.hp_delta_enabled': true, 'rules.hp_zero_ends_game': true },
};

export const MoveArgs = z.object({
  actor_id: z.string(),
  from_area_id: z.string(),
  to_area_id: z.string(),
  path_id: z.string().optional(),
});

export const HpDeltaArgs = z.object({
  target_character_id: z.string(),
  delta: z.number().int(),
  cause: z.string(),
});

/** The reference document's campaign: authoritative positions and hit points, and its two V1 tools. */
export function createCampaign() {
  const positions = new Map<string, string>([['pc_1', 'hall']]);
  const hp = new Map<string, number>([
    ['pc_1', 15],
    ['npc_goblin', 0],
  ]);
  const paths = new Set(['hall>vault', 'vault>hall']);
  const runs: { tool: string; args: unknown }[] = [];

  const move = defineTool({
    name: 'move',
    title: 'Move',
    description: 'Moves an actor from its area to an adjacent area',
    args: MoveArgs,
    reasons: ['area_locked', 'not_in_area', 'no_path'],
    execute: (args, { reject }) => {
      runs.push({ tool: 'move', args });
      if (positions.get(args.actor_id) !== args.from_area_id) {
        return reject('not_in_area', `${args.actor_id} is not in ${args.from_area_id}`);
      }
      if (!paths.has(`${args.from_area_id}>${args.to_area_id}`)) return reject('no_path');
      positions.set(args.actor_id, args.to_area_id);
      return { actor_id: args.actor_id, area_id: args.to_area_id };
    },
  });

  const hpDelta = defineTool({
    name: 'hp_delta',
    description: "Changes a character's hit points by delta",
    args: HpDeltaArgs,
    reasons: ['unknown_character', 'character_dead', 'tool_disabled'],
    execute: (args, { reject }) => {
      runs.push({ tool: 'hp_delta', args });
      const current = hp.get(args.target_character_id);
      if (current === undefined) return reject('unknown_character');
      if (current <= 0) return reject('character_dead', undefined, { disableUntil: { turn: 99 } });
      const next = Math.max(0, current + args.delta);
      hp.set(args.target_character_id, next);
      return { hp: next };
    },
  });

  return { positions, hp, runs, move, hpDelta, tools: [move, hpDelta] as const };
}

export const moveCall = (id = 'call_001', overrides: Record<string, unknown> = {}) => ({
  id,
  tool: 'move',
  args: { actor_id: 'pc_1', from_area_id: 'hall', to_area_id: 'vault', ...overrides },
  reason: 'The party heads to the vault',
});

export const hpCall = (id = 'call_002', delta = -3) => ({
  id,
  tool: 'hp_delta',
  args: { target_character_id: 'pc_1', delta, cause: 'trap' },
});

/** A `data_modify` tool (channel-confirmation seed) whose DML/DDL needs a person's confirmation. */
export function createDataModify() {
  const statements: string[] = [];
  const dataModify = defineTool({
    name: 'data_modify',
    description: 'Runs one SQL statement against the orders database',
    args: z.object({ sql: z.string().min(1) }),
    reasons: ['read_only_mode'],
    confirm: (args) => /^\s*(insert|update|delete|drop|alter|create|truncate)\b/i.test(args.sql),
    summarize: (args) => args.sql,
    execute: (args) => {
      statements.push(args.sql);
      return { rows: 1 };
    },
  });
  return { dataModify, statements };
}

/**
 * A tiny chat channel: records what the bot sends and answers each confirmation prompt with the
 * scripted reply (nothing when the script returns undefined), as `senderId`.
 */
export interface ReplyingChannel extends ChannelAdapter {
  readonly sent: OutboundMessage[];
}

export function createReplyingChannel(
  reply: (prompt: OutboundMessage) => string | undefined,
  senderId = 'ou_alice',
): ReplyingChannel {
  let deliver: DeliverInbound | undefined;
  const sent: OutboundMessage[] = [];
  let position = 0; // the platform's per-chat order: the answer is written after the prompt
  return {
    channel: 'feishu',
    sent,
    connect(next) {
      deliver = next;
    },
    send(message) {
      sent.push(message);
      const order = { scope: message.chatId, position: [++position] };
      const text = reply(message);
      if (text !== undefined && deliver !== undefined) {
        const answer = deliver;
        const written = { scope: message.chatId, position: [++position] };
        // It reaches the bot before the send's answer does; the platform's order tells it came after.
        queueMicrotask(() => void answer({ chatId: message.chatId, senderId, text, order: written }));
      }
      return { order };
    },
  };
}

export interface ConfirmHarness {
  readonly clock: ManualClock;
  readonly bus: MessageBus;
  readonly channel: ReplyingChannel;
  readonly confirm: ConfirmGate;
}

/** A real `@parley/confirm` gate on a bus whose channel answers prompts with `reply`. */
export async function createConfirmHarness(
  reply: (prompt: OutboundMessage) => string | undefined,
  options: Partial<ConfirmGateOptions> = {},
): Promise<ConfirmHarness> {
  const clock = createManualClock({ now: 1_000_000 });
  const bus = createMessageBus({ clock });
  const channel = createReplyingChannel(reply);
  await bus.attach(channel);
  const confirm = createConfirmGate({
    bus,
    clock,
    cards: false,
    generateId: createSequentialIds('cfm_'),
    ...options,
  });
  await confirm.ready;
  return { clock, bus, channel, confirm };
}

/** A `slow` tool whose executor counts its runs and waits until `release()` (a call in flight). */
export function createSlowTool() {
  let release: () => void = () => {};
  const wait = new Promise<void>((resolve) => {
    release = resolve;
  });
  let runs = 0;
  const slow = defineTool({
    name: 'slow',
    description: 'Takes a while',
    args: z.object({}),
    reasons: [],
    execute: async () => {
      runs++;
      await wait;
      return runs;
    },
  });
  return { slow, release: () => release(), runs: () => runs };
}

/** A `charge` tool whose executor counts its runs and throws after (perhaps) charging. */
export function createThrowingCharge() {
  let runs = 0;
  const charge = defineTool({
    name: 'charge',
    description: 'Charges a card',
    args: z.object({ cents: z.number() }),
    reasons: [],
    execute: () => {
      runs++;
      throw new Error('timeout after write');
    },
  });
  return { charge, runs: () => runs };
}

/** A stored call as the gate's kernel record holds it (`value` as its data). */
export function storedCall(value: unknown): JsonValue {
  const data = JSON.parse(JSON.stringify(value)) as JsonValue;
  return { kind: 'parley.tools.call', version: 1, data, lease: null, fence: 0, deadlineAt: null };
}

/**
 * The stored call at `key`: the outcome a kernel claim was settled with, `{ state: 'executing', tool }`
 * for a claim without one, `undefined` for none (or a claim given back); a record of the previous
 * format (`parley.tools.call`) as it is.
 */
export async function storedCallAt(store: Store, key: string): Promise<JsonValue | undefined> {
  const record = (await store.get(key)) as { kind: string; data: JsonValue } | undefined; // a kernel record
  if (record?.kind !== 'parley.kernel.claim') return record?.data;
  const claim = record.data as { settled: boolean; result: JsonValue; digest: string } | null;
  if (claim === null) return undefined;
  if (claim.settled) return claim.result;
  return { state: 'executing', tool: (JSON.parse(claim.digest) as { tool: string }).tool };
}
