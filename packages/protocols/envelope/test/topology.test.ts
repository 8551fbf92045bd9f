import { createManualClock, createSequentialIds, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  createTopology,
  DEFAULT_TOPOLOGY_LIMITS,
  type Topology,
  type TopologyEvents,
  TOPOLOGY_REFUSAL_CODES,
} from '../src/index.js';

/** The quant pipeline of the reference protocol: CEO → strategist → researchers and a reviewer. */
function pipeline(options: Parameters<typeof createTopology>[0] = { maxSpawnDepth: 2 }): Topology {
  const topology = createTopology({ clock: createManualClock({ now: 10 }), ...options });
  topology.register({ id: 'ceo', role: 'ceo' });
  topology.register({ id: 'secretary' });
  topology.register({ id: 'discord', role: 'notifier', kind: 'channel' });
  expect(topology.spawn({ parent: 'ceo', id: 'quant_strategist' }).ok).toBe(true);
  for (const id of ['bull', 'bear']) expect(topology.spawn({ parent: 'quant_strategist', id }).ok).toBe(true);
  return topology;
}

const message = (from: string, to: string, spawn_depth: number, expect_response = false) => ({
  from,
  to,
  spawn_depth,
  expect_response,
});

describe('createTopology: limits', () => {
  it('defaults to the reference limits: depth 1, 5 children, 8 concurrent runs', () => {
    expect(createTopology().limits).toEqual({ maxSpawnDepth: 1, maxChildrenPerAgent: 5, maxConcurrent: 8 });
    expect(DEFAULT_TOPOLOGY_LIMITS).toEqual(createTopology().limits);
  });

  it('refuses limits out of range with invalid_argument', () => {
    for (const options of [
      { maxSpawnDepth: 6 },
      { maxSpawnDepth: 0 },
      { maxChildrenPerAgent: 21 },
      { maxConcurrent: 0 },
      { maxConcurrent: 1.5 },
      { maxSpawnDepth: Number.NaN },
    ]) {
      expect(() => createTopology(options)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
    expect(createTopology({ maxSpawnDepth: 5, maxChildrenPerAgent: 20 }).limits.maxSpawnDepth).toBe(5);
  });
});

describe('spawn', () => {
  it('makes depth-1 children leaves at the default maxSpawnDepth of 1', () => {
    const topology = createTopology();
    topology.register({ id: 'ceo' });
    const child = topology.spawn({ parent: 'ceo', id: 'strategist' });
    expect(child).toMatchObject({
      ok: true,
      value: { id: 'strategist', parent: 'ceo', depth: 1, role: 'strategist' },
    });
    const grandchild = topology.spawn({ parent: 'strategist', id: 'bull' });
    expect(grandchild).toMatchObject({
      ok: false,
      code: 'depth_exceeded',
      details: { depth: 2, maxSpawnDepth: 1 },
    });
    expect(topology.agent('bull')).toBeUndefined();
  });

  it('lets depth-1 agents spawn at maxSpawnDepth 2, and keeps depth 2 a leaf', () => {
    const topology = pipeline();
    expect(topology.agent('bull')).toMatchObject({ depth: 2, parent: 'quant_strategist' });
    expect(topology.spawn({ parent: 'bull', id: 'x' })).toMatchObject({ ok: false, code: 'depth_exceeded' });
  });

  it('nests up to 5 levels at most', () => {
    const topology = createTopology({ maxSpawnDepth: 5 });
    topology.register({ id: 'a0' });
    for (let depth = 1; depth <= 5; depth++) {
      expect(topology.spawn({ parent: `a${depth - 1}`, id: `a${depth}` })).toMatchObject({
        ok: true,
        value: { depth },
      });
    }
    expect(topology.spawn({ parent: 'a5', id: 'a6' })).toMatchObject({ ok: false, code: 'depth_exceeded' });
  });

  it('refuses a sixth child with too_many_children, and allows one again after a child finishes', () => {
    const topology = createTopology();
    topology.register({ id: 'lead' });
    for (let i = 0; i < 5; i++) expect(topology.spawn({ parent: 'lead', id: `c${i}` }).ok).toBe(true);
    expect(topology.spawn({ parent: 'lead', id: 'c5' })).toMatchObject({
      ok: false,
      code: 'too_many_children',
      details: { parent: 'lead', children: 5, maxChildrenPerAgent: 5 },
    });
    topology.finish('c0');
    expect(topology.spawn({ parent: 'lead', id: 'c5' }).ok).toBe(true);
  });

  it('allows up to 20 children when configured', () => {
    const topology = createTopology({ maxChildrenPerAgent: 20, maxConcurrent: 50 });
    topology.register({ id: 'lead' });
    for (let i = 0; i < 20; i++) expect(topology.spawn({ parent: 'lead' }).ok).toBe(true);
    expect(topology.spawn({ parent: 'lead' })).toMatchObject({ code: 'too_many_children' });
  });

  it('refuses a ninth concurrent run across the tree with concurrency_exceeded', () => {
    const topology = createTopology();
    for (const lead of ['a', 'b']) topology.register({ id: lead });
    for (let i = 0; i < 4; i++) {
      topology.spawn({ parent: 'a' });
      topology.spawn({ parent: 'b' });
    }
    expect(topology.running()).toBe(8);
    expect(topology.spawn({ parent: 'a' })).toMatchObject({
      code: 'concurrency_exceeded',
      details: { running: 8, maxConcurrent: 8 },
    });
    expect(topology.running()).toBe(8);
  });

  it('refuses an unknown parent, a channel as parent and a taken id', () => {
    const topology = pipeline();
    expect(topology.spawn({ parent: 'ghost' })).toMatchObject({ code: 'unknown_agent' });
    expect(topology.spawn({ parent: 'discord' })).toMatchObject({ code: 'not_an_agent' });
    expect(topology.spawn({ parent: 'ceo', id: 'bull' })).toMatchObject({ code: 'duplicate_agent' });
  });

  it('generates ids, skipping any the generator repeats', () => {
    const topology = createTopology({ generateId: createSequentialIds('run_'), maxChildrenPerAgent: 3 });
    topology.register({ id: 'run_2' });
    expect(topology.spawn({ parent: 'run_2' })).toMatchObject({ value: { id: 'run_1' } });
    expect(topology.spawn({ parent: 'run_2' })).toMatchObject({ value: { id: 'run_3' } });
  });

  it('tells whether a spawn would be allowed without spawning or emitting anything', () => {
    const topology = pipeline();
    const events: unknown[] = [];
    topology.on('refused', (event) => events.push(event));
    topology.on('spawned', (event) => events.push(event));
    expect(topology.canSpawn('quant_strategist')).toEqual({ ok: true });
    expect(topology.canSpawn('bull')).toMatchObject({ ok: false, code: 'depth_exceeded' });
    expect(topology.children('quant_strategist').map((a) => a.id)).toEqual(['bull', 'bear']);
    expect(events).toEqual([]);
  });

  it('refuses ids and roles that are empty or too long with invalid_argument', () => {
    const topology = pipeline();
    expect(() => topology.spawn({ parent: 'ceo', id: '' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => topology.spawn({ parent: 'ceo', role: 'r'.repeat(300) })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => topology.register({ id: 7 as unknown as string })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => topology.register({ id: 'x', kind: 'bot' as 'agent' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('throws duplicate_agent when a host registers a taken id', () => {
    const topology = pipeline();
    let caught: unknown;
    try {
      topology.register({ id: 'ceo' });
    } catch (err) {
      caught = err;
    }
    expect(isParleyError(caught, 'duplicate_agent')).toBe(true);
  });
});

describe('check: who may message whom', () => {
  it('lets a child announce upward to its parent, and a parent message its child', () => {
    const topology = pipeline();
    expect(topology.check(message('bull', 'quant_strategist', 2))).toEqual({ ok: true });
    expect(topology.check(message('quant_strategist', 'bull', 1))).toEqual({ ok: true });
    expect(topology.check(message('quant_strategist', 'ceo', 1))).toEqual({ ok: true });
  });

  it('refuses messages between siblings with lateral_message', () => {
    expect(pipeline().check(message('bull', 'bear', 2))).toMatchObject({
      ok: false,
      code: 'lateral_message',
      details: { from: 'bull', to: 'bear' },
    });
  });

  it('refuses a child messaging past its parent with not_parent', () => {
    const topology = pipeline();
    expect(topology.check(message('bull', 'ceo', 2))).toMatchObject({ code: 'not_parent' });
    expect(topology.check(message('ceo', 'bull', 0))).toMatchObject({ code: 'not_parent' });
    expect(topology.check(message('bull', 'secretary', 2))).toMatchObject({ code: 'not_parent' });
    expect(topology.check(message('bull', 'bull', 2))).toMatchObject({ code: 'not_parent' });
  });

  it('refuses cousins with not_parent', () => {
    const topology = pipeline({ maxSpawnDepth: 2 });
    topology.spawn({ parent: 'secretary', id: 'calendar' });
    topology.spawn({ parent: 'calendar', id: 'cousin' });
    expect(topology.check(message('cousin', 'bull', 2))).toMatchObject({ code: 'not_parent' });
  });

  it('allows a blocking send only between depth-0 agents', () => {
    const topology = pipeline();
    expect(topology.check(message('ceo', 'secretary', 0, true))).toEqual({ ok: true });
    expect(topology.check(message('bull', 'quant_strategist', 2, true))).toMatchObject({
      code: 'send_not_allowed',
    });
    expect(topology.check(message('ceo', 'quant_strategist', 0, true))).toMatchObject({
      code: 'send_not_allowed',
    });
    expect(topology.check(message('quant_strategist', 'ceo', 1, true))).toMatchObject({
      code: 'send_not_allowed',
    });
  });

  it('refuses a blocking send for children at any maxSpawnDepth', () => {
    for (const maxSpawnDepth of [1, 2, 5]) {
      const topology = createTopology({ maxSpawnDepth });
      topology.register({ id: 'ceo' });
      topology.spawn({ parent: 'ceo', id: 'child' });
      expect(topology.check(message('child', 'ceo', 1, true))).toMatchObject({ code: 'send_not_allowed' });
    }
  });

  it('lets depth-0 agents message each other without blocking', () => {
    expect(pipeline().check(message('secretary', 'ceo', 0))).toEqual({ ok: true });
  });

  it('lets any agent notify a channel one way, and refuses a channel as sender or a blocking send to it', () => {
    const topology = pipeline();
    expect(topology.check(message('bull', 'discord', 2))).toEqual({ ok: true });
    expect(topology.check(message('ceo', 'discord', 0, true))).toMatchObject({ code: 'send_not_allowed' });
    expect(topology.check(message('discord', 'ceo', 0))).toMatchObject({ code: 'not_an_agent' });
  });

  it('refuses unknown parties with unknown_agent', () => {
    const topology = pipeline();
    expect(topology.check(message('ghost', 'ceo', 0))).toMatchObject({ code: 'unknown_agent' });
    expect(topology.check(message('ceo', 'ghost', 0))).toMatchObject({ code: 'unknown_agent' });
  });

  it('refuses a sender that claims a depth it does not run at with depth_mismatch', () => {
    const claimed = pipeline().check(message('bull', 'quant_strategist', 0, true));
    expect(claimed).toMatchObject({ code: 'depth_mismatch', details: { depth: 2, claimed: 0 } });
  });
});

describe('finish, events and snapshots', () => {
  it('removes a run and its descendants, freeing their slots, and emits one finished event', () => {
    const topology = pipeline();
    const finished: TopologyEvents['finished'][] = [];
    topology.on('finished', (event) => finished.push(event));
    expect(topology.finish('quant_strategist')).toEqual(['bull', 'bear', 'quant_strategist']);
    expect(topology.running()).toBe(0);
    expect(topology.agent('bull')).toBeUndefined();
    expect(topology.children('ceo')).toEqual([]);
    expect(finished).toEqual([{ id: 'quant_strategist', ids: ['bull', 'bear', 'quant_strategist'] }]);
    expect(topology.finish('quant_strategist')).toEqual([]);
    expect(finished).toHaveLength(1);
  });

  it('lets a reviewer be spawned again after it finished (revise by re-spawn)', () => {
    const topology = pipeline();
    topology.spawn({ parent: 'quant_strategist', id: 'reviewer', role: 'reviewer' });
    topology.finish('reviewer');
    expect(topology.spawn({ parent: 'quant_strategist', id: 'reviewer', role: 'reviewer' }).ok).toBe(true);
  });

  it('unregisters a depth-0 agent without touching the running count of others', () => {
    const topology = pipeline();
    expect(topology.finish('secretary')).toEqual(['secretary']);
    expect(topology.running()).toBe(3);
  });

  it('emits spawned and refused events with plain data, and stops after unsubscribing', () => {
    const topology = pipeline();
    const seen: string[] = [];
    const offSpawned = topology.on('spawned', ({ agent }) => seen.push(`spawned ${agent.id}`));
    const offRefused = topology.on('refused', ({ action, code }) => seen.push(`${action} ${code}`));
    topology.spawn({ parent: 'quant_strategist', id: 'reviewer' });
    topology.spawn({ parent: 'bull' });
    topology.check(message('bull', 'bear', 2));
    offSpawned();
    offRefused();
    topology.spawn({ parent: 'bull' });
    topology.spawn({ parent: 'quant_strategist', id: 'data' });
    expect(seen).toEqual(['spawned reviewer', 'spawn depth_exceeded', 'message lateral_message']);
  });

  it('resumes from a snapshot with the same agents, children and running count', () => {
    const topology = pipeline();
    const snapshot = JSON.parse(JSON.stringify(topology.snapshot()));
    const restored = createTopology({ maxSpawnDepth: 2, snapshot });
    expect(restored.agents()).toEqual(topology.agents());
    expect(restored.running()).toBe(3);
    expect(restored.children('quant_strategist').map((a) => a.id)).toEqual(['bull', 'bear']);
    expect(restored.check(message('bull', 'bear', 2))).toMatchObject({ code: 'lateral_message' });
    expect(snapshot.agents[0]).toEqual({
      id: 'ceo',
      role: 'ceo',
      parent: null,
      depth: 0,
      kind: 'agent',
      startedAt: 10,
    });
  });

  it('refuses a malformed snapshot with invalid_snapshot', () => {
    const good = pipeline().snapshot();
    const agents = good.agents;
    const broken = [
      null,
      { version: 2, agents },
      { version: 1, agents: 'x' },
      { version: 1, agents: [...agents].reverse() },
      { version: 1, agents: [agents[0], agents[0]] },
      { version: 1, agents: [{ ...agents[0], depth: 1 }] },
      { version: 1, agents: [{ ...agents[0], startedAt: 'now' }] },
      { version: 1, agents: [{ ...agents[0], kind: 'bot' }] },
      { version: 1, agents: [agents[0], { ...agents[3], depth: 3 }] },
      { version: 1, agents: [agents[2], { ...agents[3], parent: 'discord' }] },
      { version: 1, agents: [7] },
    ];
    for (const snapshot of broken) {
      expect(() => createTopology({ snapshot: snapshot as never })).toThrow(
        expect.objectContaining({ code: 'invalid_snapshot' }),
      );
    }
  });

  it('reports every kind of refusal through the refused event', () => {
    const topology = pipeline({ maxSpawnDepth: 2, maxChildrenPerAgent: 2, maxConcurrent: 4 });
    const codes = new Set<string>();
    topology.on('refused', ({ code }) => codes.add(code));
    topology.spawn({ parent: 'ghost' });
    topology.spawn({ parent: 'discord' });
    topology.spawn({ parent: 'ceo', id: 'bull' });
    topology.spawn({ parent: 'bull' });
    topology.spawn({ parent: 'quant_strategist' });
    topology.spawn({ parent: 'secretary', id: 'fourth' });
    topology.spawn({ parent: 'secretary' });
    topology.check(message('bull', 'quant_strategist', 1));
    topology.check(message('bull', 'quant_strategist', 2, true));
    topology.check(message('bull', 'bear', 2));
    topology.check(message('bull', 'ceo', 2));
    expect([...codes].sort()).toEqual([...TOPOLOGY_REFUSAL_CODES].sort());
  });
});
