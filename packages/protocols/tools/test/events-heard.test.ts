import { describe, expect, it } from 'vitest';
import { createToolGate, defineTool, type ToolGateEvents } from '../src/index.js';
import { z } from 'zod';
import { createCampaign, EXPLORING, hpCall, moveCall } from './helpers.js';

// The gate writes an event only when someone listens, and answers a batch of one call on a path
// of its own: what a listener sees, and what the answer holds, must not depend on either.

function setup() {
  const campaign = createCampaign();
  const gate = createToolGate({ tools: campaign.tools, allowlist: ['move', 'hp_delta'] });
  return { ...campaign, gate };
}

describe('tool gate events, heard or not', () => {
  it('tells a listener that subscribes between batches of what comes after, and stops when it leaves', async () => {
    const { gate } = setup();
    await gate.process([moveCall('call_001')], { turn: 1, context: EXPLORING }); // nobody listens
    const executed: ToolGateEvents['executed'][] = [];
    const refused: ToolGateEvents['refused'][] = [];
    const stopExecuted = gate.on('executed', (event) => executed.push(event));
    const stopRefused = gate.on('refused', (event) => refused.push(event));
    await gate.process([hpCall('call_002')], { turn: 1, context: EXPLORING });
    await gate.process([{ id: 'call_003', tool: 'teleport', args: {} }], { turn: 1, context: EXPLORING });
    expect(executed.map((event) => [event.turn, event.call.id])).toEqual([[1, 'call_002']]);
    expect(refused.map((event) => [event.turn, event.failed.id, event.failed.code])).toEqual([
      [1, 'call_003', 'unknown_tool'],
    ]);
    stopExecuted();
    stopRefused();
    await gate.process([hpCall('call_004')], { turn: 2, context: EXPLORING });
    await gate.process([{ id: 'call_005', tool: 'teleport', args: {} }], { turn: 2, context: EXPLORING });
    expect(executed).toHaveLength(1);
    expect(refused).toHaveLength(1);
  });

  it('keeps telling a listener when another one leaves twice', async () => {
    const { gate } = setup();
    const stopFirst = gate.on('executed', () => {});
    stopFirst();
    stopFirst(); // a second stop is a no-op: it does not count the listener that follows as gone
    const executed: string[] = [];
    gate.on('executed', (event) => executed.push(event.call.id));
    await gate.process([moveCall('call_001')], { turn: 1, context: EXPLORING });
    expect(executed).toEqual(['call_001']);
  });

  it('does not announce a replayed call again, heard or not', async () => {
    const { gate } = setup();
    const executed: ToolGateEvents['executed'][] = [];
    gate.on('executed', (event) => executed.push(event));
    const first = await gate.process([moveCall('call_001')], { turn: 1, context: EXPLORING });
    const again = await gate.process([moveCall('call_001')], { turn: 1, context: EXPLORING });
    expect(first.executed[0]?.replayed).toBe(false);
    expect(again.executed[0]?.replayed).toBe(true);
    expect(executed.map((event) => event.call.id)).toEqual(['call_001']);
  });

  it('answers a batch of one call as a longer batch lists it: executed, refused, or waited for', async () => {
    const { gate } = setup();
    const ran = await gate.process([moveCall('call_001')], { turn: 1, context: EXPLORING });
    expect(ran.executed.map((call) => call.id)).toEqual(['call_001']);
    expect(ran.feedback.failed_calls).toEqual([]);
    expect(ran.records.map((record) => [record.id, record.outcome])).toEqual([['call_001', 'executed']]);
    const refused = await gate.process([{ id: 'call_002', tool: 'teleport', args: {} }], {
      turn: 1,
      context: EXPLORING,
    });
    expect(refused.executed).toEqual([]);
    expect(refused.feedback.failed_calls.map((failed) => failed.code)).toEqual(['unknown_tool']);
    expect(refused.records.map((record) => [record.id, record.outcome])).toEqual([['call_002', 'rejected']]);
    const later = defineTool({
      name: 'later',
      description: 'Answers after a promise',
      args: z.object({}),
      reasons: [],
      execute: async () => 'done',
    });
    const slow = createToolGate({ tools: [later], allowlist: ['later'] });
    const waited = await slow.process([{ id: 'c1', tool: 'later', args: {} }], { turn: 1 });
    expect(waited.executed.map((call) => [call.id, call.result])).toEqual([['c1', 'done']]);
    expect(waited.records.map((record) => record.outcome)).toEqual(['executed']);
  });

  it('records what ran as what was asked when nothing changed it, and apart from it when something did', async () => {
    const { gate } = setup();
    const { reason, ...unreasoned } = moveCall('call_001');
    const asked = await gate.process([unreasoned], { turn: 1, context: EXPLORING });
    const record = asked.records[0];
    expect(record?.requested).toEqual({ tool: 'move', args: moveCall().args });
    expect(record?.ran).toEqual({ tool: 'move', args: moveCall().args });
    const reasoned = await gate.process([moveCall('call_002')], { turn: 1, context: EXPLORING });
    const withReason = reasoned.records[0];
    expect(withReason?.requested).toEqual({ tool: 'move', args: moveCall().args, reason });
    expect(withReason?.ran).toEqual({ tool: 'move', args: moveCall().args });
  });
});
