// A run taken for resuming by a process that then crashed: its outcome is unknown, and it is
// reported (never re-run, never silently dropped).
import { isParleyError } from '@parley/core';
import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { hangingModel, ScriptedModel, say, sharedWorld, startProcess, storedRun } from './helpers.js';

const LEASE_MS = 10 * 60_000; // the default resumeLeaseMs

describe('a run left resuming by a crashed process', () => {
  it('is in flight while its lease lasts, then reported as an unknown outcome and never run again', async () => {
    const world = sharedWorld();
    const listener = await storedRun(world, true); // r1 proposed, answered, nobody resumed it yet
    const hang = hangingModel();
    const crashed = await startProcess(world, hang.model, {}, 'cfm_c');
    void crashed.bridge.resume('r1'); // runs the approved tool, then dies waiting for the model
    await hang.reached;
    expect(world.dropped).toEqual(['orders']);
    await crashed.bridge.close();

    const other = await startProcess(world, new ScriptedModel([[say('Dropped.')]]), {}, 'cfm_d');
    expect(await other.bridge.resume('r1')).toEqual({ status: 'elsewhere' }); // its lease is still valid
    world.clock.advance(LEASE_MS);
    const reported = await other.bridge.resume('r1');
    expect(reported).toMatchObject({ status: 'unknown_outcome', resumedAt: 1_700_000_000_000 });
    expect(reported.status === 'unknown_outcome' && reported.resumedBy).toMatch(/^agents-/);
    const third = await startProcess(world, new ScriptedModel([[say('Dropped.')]]), {}, 'cfm_e');
    expect(await third.bridge.resume('r1')).toMatchObject({ status: 'unknown_outcome' }); // reported again
    expect(world.dropped).toEqual(['orders']); // never re-run
    await listener.close();
    for (const process of [other, third]) await process.bridge.close();
  });
});

describe('a run whose resumption may or may not have started', () => {
  it('reports a run left resuming by a version that did not claim resumptions as an unknown outcome', async () => {
    const world = sharedWorld();
    const listener = await storedRun(world, true);
    const key = 'parley:agents:run:r1';
    const stored = (await world.store.get(key)) as { data: Record<string, unknown> }; // a kernel record
    await world.store.set(key, { ...stored, data: { ...stored.data, status: 'resuming' } });
    const after = await startProcess(world, new ScriptedModel([[say('Dropped.')]]), {}, 'cfm_d');
    expect(await after.bridge.resume('r1')).toEqual({
      status: 'unknown_outcome',
      resumedBy: null,
      resumedAt: null,
    });
    expect(world.dropped).toEqual([]);
    await listener.close();
    await after.bridge.close();
  });

  it('reports a resumption claimed by a process that failed before moving the run on, never running it', async () => {
    const world = sharedWorld();
    const listener = await storedRun(world, true);
    const failing = createFakeStore({ inner: world.store });
    const broken = await startProcess({ ...world, store: failing }, new ScriptedModel([]), {}, 'cfm_c');
    failing.before('compareAndSet', () => undefined); // the answer's decision id lands
    failing.before('compareAndSet', () => undefined); // the claim of the resumption lands
    failing.before('compareAndSet', () => failing.fail('compareAndSet', { times: 1 })); // the run's move fails
    const error = await broken.bridge.resume('r1').catch((caught: unknown) => caught);
    expect(isParleyError(error, 'store_failed')).toBe(true); // the claim landed, the run's move did not
    expect(failing.calls.filter((c) => c.method === 'compareAndSet').map((c) => [c.key, c.failed])).toEqual([
      ['parley:agents:approval:r1:c1', false],
      ['parley:agents:resume:r1:1', false],
      ['parley:agents:run:r1', true],
    ]);
    await broken.bridge.close();
    const after = await startProcess(world, new ScriptedModel([[say('Dropped.')]]), {}, 'cfm_d');
    expect(await after.bridge.resume('r1')).toEqual({ status: 'elsewhere' }); // the claim's lease lasts
    world.clock.advance(LEASE_MS);
    expect(await after.bridge.resume('r1')).toMatchObject({ status: 'unknown_outcome' });
    expect(world.dropped).toEqual([]);
    await listener.close();
    await after.bridge.close();
  });

  it('refuses with store_failed when the resumption cannot be claimed, running nothing', async () => {
    const world = sharedWorld();
    const listener = await storedRun(world, true);
    const failing = createFakeStore({ inner: world.store });
    const broken = await startProcess({ ...world, store: failing }, new ScriptedModel([]), {}, 'cfm_c');
    failing.before('compareAndSet', () => undefined); // the answer's decision id lands
    failing.before('compareAndSet', () => failing.fail('compareAndSet', { times: 1 })); // the claim fails
    const error = await broken.bridge.resume('r1').catch((caught: unknown) => caught);
    expect(isParleyError(error, 'store_failed')).toBe(true);
    await broken.bridge.close();
    const after = await startProcess(world, new ScriptedModel([[say('Dropped.')]]), {}, 'cfm_d');
    expect(await after.bridge.resume('r1')).toMatchObject({ status: 'completed' }); // nothing was claimed
    expect(world.dropped).toEqual(['orders']);
    await listener.close();
    await after.bridge.close();
  });
});
