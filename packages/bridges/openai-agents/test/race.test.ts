import { describe, expect, it } from 'vitest';
import { ScriptedModel, say, sharedWorld, startProcess, storedRun } from './helpers.js';

describe('two processes racing to resume one stored RunState', () => {
  it('resumes it exactly once; the other process gets elsewhere, and the tool runs once', async () => {
    const world = sharedWorld();
    const listener = await storedRun(world, true);
    expect(world.dropped).toEqual([]);
    // Two independently constructed runners (bridges) on the one shared store.
    const one = await startProcess(world, new ScriptedModel([[say('Dropped.')]]), {}, 'cfm_c');
    const two = await startProcess(world, new ScriptedModel([[say('Dropped.')]]), {}, 'cfm_d');
    const outcomes = await Promise.all([one.bridge.resume('r1'), two.bridge.resume('r1')]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['completed', 'elsewhere']);
    const done = outcomes.find((outcome) => outcome.status === 'completed');
    expect(done?.status === 'completed' && done.result.finalOutput).toBe('Dropped.');
    expect(world.dropped).toEqual(['orders']);
    expect(await one.bridge.resume('r1')).toEqual({ status: 'elsewhere' }); // done already
    await listener.close();
    for (const process of [one, two]) await process.bridge.close();
  });

  it('says waiting while an approval is unanswered, and unknown_run for a run it never stored', async () => {
    const world = sharedWorld();
    const listener = await storedRun(world, false);
    const one = await startProcess(world, new ScriptedModel([[say('Dropped.')]]), {}, 'cfm_c');
    expect(await one.bridge.resume('r1')).toEqual({ status: 'waiting' });
    expect(await one.bridge.resume('r2')).toEqual({ status: 'unknown_run' });
    expect(world.dropped).toEqual([]);
    await listener.close();
    await one.bridge.close();
  });
});
