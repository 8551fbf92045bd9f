import { isParleyError, type JsonValue, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { AgentsBridgeError, type AgentsRunOutcome } from '../src/index.js';
import { call, diedAfterProposal, ScriptedModel, say, sharedWorld, startProcess, WHERE } from './helpers.js';

const RUN_KEY = 'parley:agents:run:r1';
const APPROVAL_KEY = 'parley:agents:approval:r1:c1';

/** A process restarted on a store whose record at `key` was replaced by `value`; what `resume('r1')` does. */
async function resumeOver(key: string, value: JsonValue): Promise<unknown> {
  const world = sharedWorld();
  await diedAfterProposal(world);
  await world.store.set(key, value);
  const after = await startProcess(world, new ScriptedModel([[say('Dropped.')]]), {}, 'cfm_b');
  try {
    return await after.bridge.resume('r1').then(
      (outcome) => ({ resolved: outcome }),
      (error: unknown) => error,
    );
  } finally {
    await after.bridge.close();
    expect(world.dropped).toEqual([]); // nothing ran from a record that was refused
  }
}

function expectRefused(error: unknown, code: 'corrupt_record' | 'record_version'): void {
  expect(error).toBeInstanceOf(AgentsBridgeError);
  expect(isParleyError(error, code)).toBe(true);
}

describe('stored records are checked before they are used', () => {
  it('refuses a run record that is not one with corrupt_record, never resuming from it', async () => {
    const error = await resumeOver(RUN_KEY, { runId: 'r1', status: 'waiting', state: 42 });
    expectRefused(error, 'corrupt_record');
  });

  it('refuses a run record of another format version with record_version, never overwriting it', async () => {
    const run = { runId: 'r1', state: '{}', status: 'waiting', sessionKey: 'tg:g1', requester: 'alice' };
    const other = { kind: 'parley.openai-agents.run', version: 2, data: { ...run, callIds: ['c1'] } };
    const error = await resumeOver(RUN_KEY, { ...other, lease: null, fence: 0, deadlineAt: null });
    expectRefused(error, 'record_version');
  });

  it('refuses an approval record that is not one with corrupt_record instead of reading it as unanswered', async () => {
    const error = await resumeOver(APPROVAL_KEY, { runId: 'r1', callId: 'c1', decisionId: 7 });
    expectRefused(error, 'corrupt_record');
  });
});

/** `inner` whose reads (`fail: 'read'`) or writes of keys under `prefix` throw. */
function failing(inner: Store, prefix: string, fail: 'read' | 'write'): Store {
  const broken = async (key: string): Promise<never> => {
    throw new Error(`the store lost ${key}`);
  };
  return {
    ...inner,
    get: (key) => inner.get(key),
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    list: (from) => inner.list(from),
    close: () => inner.close(),
    getEntry: (key) => (fail === 'read' && key.startsWith(prefix) ? broken(key) : inner.getEntry(key)),
    compareAndSet: (key, version, value, options) =>
      fail === 'write' && key.startsWith(prefix)
        ? broken(key)
        : inner.compareAndSet(key, version, value, options),
  };
}

describe('a failing store', () => {
  it('rejects a resume with store_failed when the run record cannot be read', async () => {
    const world = sharedWorld();
    await diedAfterProposal(world);
    const store = failing(world.store, 'parley:agents:run:', 'read');
    const after = await startProcess({ ...world, store }, new ScriptedModel([]), {}, 'cfm_b');
    const error = await after.bridge.resume('r1').catch((caught: unknown) => caught);
    expect(isParleyError(error, 'store_failed')).toBe(true);
    await after.bridge.close();
  });

  it('rejects a run with store_failed when its record cannot be written, asking nobody', async () => {
    const world = sharedWorld();
    const store = failing(world.store, 'parley:agents:run:', 'write');
    const model = new ScriptedModel([[call('c1', 'drop_table', { table: 'orders' })]]);
    const host = await startProcess({ ...world, store }, model);
    const run = host.bridge.run({
      runId: 'r1',
      input: 'Drop orders',
      context: { readOnly: false },
      ...WHERE,
    });
    const error = await run.catch((caught: unknown) => caught);
    expect(isParleyError(error, 'store_failed')).toBe(true);
    expect(host.channel.sent).toEqual([]);
    await host.bridge.close();
  });
});

describe('records of other runs', () => {
  it('resumes a run on its answer though another stored approval is corrupt', async () => {
    const world = sharedWorld();
    await diedAfterProposal(world);
    await world.store.set('parley:agents:approval:r0:c0', { kind: 'parley.openai-agents.approval', data: 1 });
    let done: (outcome: AgentsRunOutcome<{ readOnly: boolean }>) => void = () => {};
    const finished = new Promise<AgentsRunOutcome<{ readOnly: boolean }>>((resolve) => {
      done = resolve;
    });
    const model = new ScriptedModel([[say('Dropped.')]]);
    const after = await startProcess(world, model, { onResumed: ({ outcome }) => done(outcome) }, 'cfm_b');
    await after.channel.say('g1', 'alice', '确认');
    expect((await finished).status).toBe('completed');
    expect(world.dropped).toEqual(['orders']);
    await after.bridge.close();
  });
});
