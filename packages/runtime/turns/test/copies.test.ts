// The runner's own copies of the host's state: taken when a turn starts (put back if it fails) and
// when it commits, whatever the host does to the object it returned from `capture` afterwards.
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { hit, say, setup } from './helpers.js';

type Env = ReturnType<typeof setup>;
type Mutable = { hp: number; log: string[] };

/** A runner whose `complete` hook first changes the host's state in place, then does what `then` says. */
function inPlace(then: 'throw' | 'return') {
  const holder: { env?: Env } = {};
  const env = setup({
    complete: (turn) => {
      // changed in place, as a careless host would (the game's type says readonly)
      const state = holder.env?.host.state as Mutable | undefined;
      state?.log.push(`in place ${turn.turnId}`);
      if (state !== undefined) state.hp -= 100;
      if (then === 'throw') throw new Error('complete failed');
      return { turn: turn.turn, text: 'done' };
    },
  });
  holder.env = env;
  return env;
}

describe("the runner's copies of the host's state", () => {
  it('puts back the state as it was when the turn started, though the host changed it in place', async () => {
    const env = inPlace('throw');
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 3));
    const err = await env.host.runner.run(say('Attack')).catch((e: unknown) => e);
    expect(isParleyError(err, 'turn_failed')).toBe(true);
    expect(env.host.state).toEqual({ hp: 20, log: [] });
  });

  it('keeps the committed state and its checkpoint apart from later changes in place', async () => {
    const env = inPlace('return');
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 3), { text: 'b' });
    await env.host.runner.run(say('One'));
    const committed = { hp: -83, log: ['in place turn_1'] };
    (env.host.state as Mutable).log.push('after the commit'); // in place, after the commit
    await env.host.runner.run(say('Two'));
    expect(await env.host.runner.rollback('turn_1')).toMatchObject({ ok: true, state: { state: committed } });
    expect(env.host.state).toEqual(committed);
  });

  it('copies a state nested deeper than a plain walk goes, and puts it back when the turn fails', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 300; i++) deep = [deep];
    const env = inPlace('throw');
    env.host.state = { ...env.host.state, deep } as typeof env.host.state;
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 3));
    await env.host.runner.run(say('Attack')).catch(() => undefined);
    expect(env.host.state).toEqual({ hp: 20, log: [], deep });
  });

  it('copies only what the state has of its own, as structuredClone does, with a key on Object.prototype', async () => {
    const env = inPlace('throw');
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 3));
    const proto = Object.prototype as Record<string, unknown>;
    proto.inherited = 'from the prototype'; // enumerable: a `for…in` sees it on every object
    try {
      await env.host.runner.run(say('Attack')).catch(() => undefined);
    } finally {
      delete proto.inherited;
    }
    expect(Object.keys(env.host.state as object)).toEqual(['hp', 'log']);
    expect(env.host.state).toEqual({ hp: 20, log: [] });
  });

  it.each([
    ['a Date', new Date(0)],
    ['a bigint', 1n],
  ])('fails a turn whose state is not plain JSON (%s), committing nothing', async (_name, odd) => {
    const env = setup();
    await env.host.runner.open();
    env.host.state = { ...env.host.state, odd } as typeof env.host.state;
    env.host.replies.push({ text: 'a' });
    const err = await env.host.runner.run(say('Look')).catch((e: unknown) => e);
    expect(isParleyError(err, 'turn_failed')).toBe(true);
    expect(await env.memory.get('game:turns:head')).toMatchObject({ data: { turn: 0 }, lease: null });
  });

  it('fails a turn whose state cannot be copied (a function) before it starts, leaving no open turn', async () => {
    const env = setup();
    await env.host.runner.open();
    env.host.state = { ...env.host.state, odd: () => 1 } as typeof env.host.state;
    await expect(env.host.runner.run(say('Look'))).rejects.toThrow();
    expect(await env.memory.get('game:turns:head')).toMatchObject({
      data: { turn: 0, open: null },
      lease: null,
    });
  });
});
