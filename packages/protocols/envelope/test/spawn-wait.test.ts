import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createTopology, type SpawnResult, type Topology, type TopologyEvents } from '../src/index.js';

function tree(options: Parameters<typeof createTopology>[0] = {}): Topology {
  const topology = createTopology({ maxSpawnDepth: 2, maxConcurrent: 2, ...options });
  topology.register({ id: 'ceo' });
  topology.register({ id: 'discord', kind: 'channel' });
  return topology;
}

/** Lets settled promises run their callbacks. */
const flush = (): Promise<void> => new Promise((resolve) => queueMicrotask(resolve));

function track(promise: Promise<SpawnResult>): { result?: SpawnResult; error?: unknown } {
  const seen: { result?: SpawnResult; error?: unknown } = {};
  promise.then(
    (result) => {
      seen.result = result;
    },
    (error: unknown) => {
      seen.error = error;
    },
  );
  return seen;
}

describe('topology.spawnWhenFree', () => {
  it('spawns at once when a slot is free', async () => {
    const topology = tree();
    const result = await topology.spawnWhenFree({ parent: 'ceo', id: 'a', role: 'worker' });
    expect(result).toMatchObject({ ok: true, value: { id: 'a', role: 'worker', depth: 1, parent: 'ceo' } });
    expect(topology.running()).toBe(1);
    expect(topology.waitingSpawns()).toBe(0);
  });

  it('waits while concurrency is exhausted and claims the slot inside finish, in FIFO order', async () => {
    const topology = tree();
    topology.spawn({ parent: 'ceo', id: 'a' });
    topology.spawn({ parent: 'ceo', id: 'b' });
    const refused: TopologyEvents['refused'][] = [];
    topology.on('refused', (event) => refused.push(event));
    const first = track(topology.spawnWhenFree({ parent: 'ceo', id: 'c' }));
    const second = track(topology.spawnWhenFree({ parent: 'ceo', id: 'd' }));
    await flush();
    expect(first.result).toBeUndefined();
    expect(topology.waitingSpawns()).toBe(2);

    topology.finish('a');
    // The slot is taken synchronously: a direct spawn right after finish finds none.
    expect(topology.agent('c')?.parent).toBe('ceo');
    expect(topology.spawn({ parent: 'ceo', id: 'x' })).toMatchObject({ code: 'concurrency_exceeded' });
    await flush();
    expect(first.result).toMatchObject({ ok: true, value: { id: 'c' } });
    expect(second.result).toBeUndefined();

    topology.finish('b');
    await flush();
    expect(second.result).toMatchObject({ ok: true, value: { id: 'd' } });
    expect(topology.waitingSpawns()).toBe(0);
    expect(refused.map((event) => event.code)).toEqual(['concurrency_exceeded']); // only the direct spawn
  });

  it('waits for a child slot of its own parent without blocking other parents', async () => {
    const topology = tree({ maxChildrenPerAgent: 1, maxConcurrent: 8 });
    topology.register({ id: 'cto' });
    topology.spawn({ parent: 'ceo', id: 'a' });
    const forCeo = track(topology.spawnWhenFree({ parent: 'ceo', id: 'b' }));
    const forCto = track(topology.spawnWhenFree({ parent: 'cto', id: 'c' }));
    await flush();
    expect(forCeo.result).toBeUndefined();
    expect(forCto.result).toMatchObject({ ok: true });
    topology.finish('a');
    await flush();
    expect(forCeo.result).toMatchObject({ ok: true, value: { id: 'b' } });
  });

  it('resolves at once with refusals that no finished run can lift', async () => {
    const topology = tree({ maxSpawnDepth: 1 });
    topology.spawn({ parent: 'ceo', id: 'a' });
    await expect(topology.spawnWhenFree({ parent: 'nobody' })).resolves.toMatchObject({
      code: 'unknown_agent',
    });
    await expect(topology.spawnWhenFree({ parent: 'discord' })).resolves.toMatchObject({
      code: 'not_an_agent',
    });
    await expect(topology.spawnWhenFree({ parent: 'a' })).resolves.toMatchObject({ code: 'depth_exceeded' });
    await expect(topology.spawnWhenFree({ parent: 'ceo', id: 'a' })).resolves.toMatchObject({
      code: 'duplicate_agent',
    });
    expect(topology.waitingSpawns()).toBe(0);
  });

  it('settles a waiter with unknown_agent when its parent finishes while it waits', async () => {
    const topology = tree({ maxConcurrent: 1 });
    topology.register({ id: 'cto' });
    topology.spawn({ parent: 'ceo', id: 'a' });
    const orphan = track(topology.spawnWhenFree({ parent: 'a', id: 'child' }));
    const other = track(topology.spawnWhenFree({ parent: 'cto', id: 'b' }));
    topology.finish('a');
    await flush();
    expect(orphan.result).toMatchObject({ ok: false, code: 'unknown_agent' });
    expect(other.result).toMatchObject({ ok: true, value: { id: 'b' } });
  });

  it('settles a waiter whose id was taken meanwhile with duplicate_agent', async () => {
    const topology = tree({ maxConcurrent: 1 });
    topology.spawn({ parent: 'ceo', id: 'a' });
    const waiting = track(topology.spawnWhenFree({ parent: 'ceo', id: 'dup' }));
    topology.register({ id: 'dup' });
    topology.finish('a');
    await flush();
    expect(waiting.result).toMatchObject({ ok: false, code: 'duplicate_agent' });
    expect(topology.running()).toBe(0);
  });

  it('rejects with cancelled when the signal aborts while waiting, and leaves the queue', async () => {
    const topology = tree({ maxConcurrent: 1 });
    topology.spawn({ parent: 'ceo', id: 'a' });
    const controller = new AbortController();
    const cancelledWait = track(
      topology.spawnWhenFree({ parent: 'ceo', id: 'b' }, { signal: controller.signal }),
    );
    const next = track(topology.spawnWhenFree({ parent: 'ceo', id: 'c' }));
    controller.abort('user left');
    await flush();
    expect(isParleyError(cancelledWait.error, 'cancelled')).toBe(true);
    expect((cancelledWait.error as Error).cause).toBe('user left');
    expect(topology.waitingSpawns()).toBe(1);
    topology.finish('a');
    await flush();
    expect(topology.agent('b')).toBeUndefined();
    expect(next.result).toMatchObject({ ok: true, value: { id: 'c' } });
  });

  it('rejects with cancelled for a signal already aborted, spawning nothing', async () => {
    const topology = tree();
    const error = await topology
      .spawnWhenFree({ parent: 'ceo', id: 'a' }, { signal: AbortSignal.abort('no') })
      .catch((e: unknown) => e);
    expect(isParleyError(error, 'cancelled')).toBe(true);
    expect(topology.agent('a')).toBeUndefined();
  });

  it('removes its abort listener once it has spawned', async () => {
    const topology = tree({ maxConcurrent: 1 });
    topology.spawn({ parent: 'ceo', id: 'a' });
    const controller = new AbortController();
    const waiting = track(topology.spawnWhenFree({ parent: 'ceo', id: 'b' }, { signal: controller.signal }));
    topology.finish('a');
    controller.abort();
    await flush();
    expect(waiting.result).toMatchObject({ ok: true });
    expect(waiting.error).toBeUndefined();
  });

  it('rejects a malformed id with invalid_argument', async () => {
    const error = await tree()
      .spawnWhenFree({ parent: 'ceo', id: '' })
      .catch((e: unknown) => e);
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
  });

  it('hands slots a spawned listener frees back to the waiters', async () => {
    const topology = tree({ maxConcurrent: 1 });
    topology.spawn({ parent: 'ceo', id: 'a' });
    const first = track(topology.spawnWhenFree({ parent: 'ceo', id: 'b' }));
    const second = track(topology.spawnWhenFree({ parent: 'ceo', id: 'c' }));
    const off = topology.on('spawned', ({ agent }) => {
      if (agent.id === 'b') topology.finish('b'); // b ends at once: its slot goes to c
    });
    topology.finish('a');
    off();
    await flush();
    expect(first.result).toMatchObject({ ok: true, value: { id: 'b' } });
    expect(second.result).toMatchObject({ ok: true, value: { id: 'c' } });
    expect(topology.running()).toBe(1);
  });
});
