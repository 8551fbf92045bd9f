import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFakeClock, createScriptedModel } from '../src/index.js';

interface Req {
  readonly input: string;
  readonly feedback: readonly string[];
}

describe('createScriptedModel: script', () => {
  it('answers replies in order and records every request and context', async () => {
    const model = createScriptedModel<string, Req>({ replies: ['a', 'b'] });
    const signal = new AbortController().signal;
    expect(await model({ input: 'x', feedback: [] })).toBe('a');
    expect(await model({ input: 'x', feedback: ['wrong'] }, { signal })).toBe('b');
    expect(model.requests).toEqual([
      { input: 'x', feedback: [] },
      { input: 'x', feedback: ['wrong'] },
    ]);
    expect(model.contexts).toEqual([undefined, { signal }]);
    expect(model.lastRequest?.feedback).toEqual(['wrong']);
    expect(model.calls.map((c) => [c.n, c.source, c.status, c.output])).toEqual([
      [1, 'script', 'replied', 'a'],
      [2, 'script', 'replied', 'b'],
    ]);
    expect(model.remaining).toBe(0);
  });

  it('rejects an unscripted call with the call number and the request', async () => {
    const model = createScriptedModel<string, Req>({ replies: ['only'] });
    await model({ input: 'first', feedback: [] });
    const error = await model({ input: 'second', feedback: ['f'] }).catch((err: unknown) => err);
    expect(isParleyError(error, 'unscripted_call')).toBe(true);
    expect((error as Error).message).toBe(
      'ScriptedModel: unscripted call #2 — the script answered 1 call and has nothing left. Request: {"input":"second","feedback":["f"]}',
    );
    expect(model.calls[1]).toMatchObject({ status: 'failed', source: 'unscripted', error });
  });

  it('names itself and says no rule matched', async () => {
    const model = createScriptedModel<string>({
      name: 'gm-model',
      rules: [{ match: 'dragon', reply: 'roar' }],
    });
    await expect(model('cat')).rejects.toThrow(
      'gm-model: unscripted call #1 — the script answered 0 calls and has nothing left (no rule matched). Request: "cat"',
    );
  });

  it('fails, responds and hangs on cue', async () => {
    const boom = new Error('502');
    const model = createScriptedModel<string, string>({
      steps: [{ fail: boom }, { respond: (request, call) => `${request}#${call.n}` }, { hang: true }],
    });
    await expect(model('a')).rejects.toBe(boom);
    expect(await model('b')).toBe('b#2');
    const controller = new AbortController();
    const hung = model('c', { signal: controller.signal });
    let settled = false;
    void hung.then(
      () => (settled = true),
      () => (settled = true),
    );
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(model.calls[2]?.status).toBe('pending');
    controller.abort(new Error('user left'));
    await expect(hung).rejects.toThrow('user left');
    expect(model.calls.map((c) => c.status)).toEqual(['failed', 'replied', 'failed']);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const model = createScriptedModel<string>({ replies: ['never'] });
    const controller = new AbortController();
    controller.abort('gone');
    await expect(model('x', { signal: controller.signal })).rejects.toBe('gone');
  });

  it('answers late on the clock, and an abort cancels the wait', async () => {
    const clock = createFakeClock({ now: 100 });
    const model = createScriptedModel<string>({
      clock,
      steps: [
        { reply: 'slow', delayMs: 1_000 },
        { fail: 'x', delayMs: 5 },
      ],
    });
    const slow = model('a');
    clock.advance(999);
    expect(model.calls[0]).toMatchObject({ status: 'pending', at: 100 });
    clock.advance(1);
    expect(await slow).toBe('slow');
    const controller = new AbortController();
    const failing = model('b', { signal: controller.signal });
    controller.abort('stop');
    await expect(failing).rejects.toBe('stop');
    clock.assertNoPendingTimers();
  });

  it('needs a clock for delays and a sane delay', () => {
    expect(() => createScriptedModel<string>({ steps: [{ reply: 'x', delayMs: 5 }] })).toThrow(
      expect.objectContaining({ code: 'clock_required' }),
    );
    const model = createScriptedModel<string>({ clock: createFakeClock() });
    expect(() => model.enqueue({ reply: 'x', delayMs: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(model.remaining).toBe(0);
  });

  it('is scripted fluently after creation', async () => {
    const model = createScriptedModel<string>().reply('a', 'b').fail('down').hang().enqueue({ reply: 'c' });
    expect(model.remaining).toBe(5);
    expect(await model(1)).toBe('a');
    expect(await model(2)).toBe('b');
    await expect(model(3)).rejects.toBe('down');
    expect(model.remaining).toBe(2);
  });

  it('asserts that every scripted step was used', async () => {
    const model = createScriptedModel<string>({
      replies: ['a', 'b'],
      steps: [{ respond: () => 'c' }, { fail: new Error('e') }, { hang: true }],
    });
    await model('x');
    const error = (() => {
      try {
        model.assertAllUsed();
      } catch (err) {
        return err as Error;
      }
    })();
    expect(isParleyError(error, 'assertion_failed')).toBe(true);
    expect(error?.message).toBe(
      'ScriptedModel: expected every scripted step to be used, but 4 steps are left after 1 call: reply "b", respond(…), fail Error: e, hang',
    );
    const single = createScriptedModel<string>({ replies: ['a'] });
    expect(() => single.assertAllUsed()).toThrow('1 step is left after 0 calls');
    await single('x');
    expect(() => single.assertAllUsed()).not.toThrow();
  });
});

describe('createScriptedModel: rules and fallback', () => {
  it('answers by matching the request before the ordered script', async () => {
    const model = createScriptedModel<string, Req>({
      replies: ['in order'],
      rules: [
        { match: (r) => r.feedback.length > 0, reply: 'fixed', times: 1 },
        { match: /dragon/, reply: 'roar' },
      ],
    });
    expect(await model({ input: 'dragon!', feedback: [] })).toBe('roar');
    expect(await model({ input: 'dragon!', feedback: ['x'] })).toBe('fixed');
    expect(await model({ input: 'again', feedback: ['x'] })).toBe('in order');
    expect(await model({ input: 'a dragon', feedback: ['x'] })).toBe('roar');
    expect(model.calls.map((c) => c.source)).toEqual(['rule', 'rule', 'script', 'rule']);
  });

  it('adds rules fluently, matching strings inside the request text', async () => {
    const model = createScriptedModel<string>().when('help', { reply: 'How can I help?' }, 2);
    expect(await model('please help')).toBe('How can I help?');
    expect(await model({ text: 'help me' })).toBe('How can I help?');
    await expect(model('help')).rejects.toMatchObject({ code: 'unscripted_call' });
  });

  it('refuses a rule used zero or a fractional number of times', () => {
    for (const times of [0, -1, 1.5, Number.NaN]) {
      expect(() => createScriptedModel<string>().when('x', { reply: 'y' }, times)).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });

  it('answers anything else with respond', async () => {
    const model = createScriptedModel<number, number>({ replies: [0], respond: (n) => n * 2 });
    expect(await model(5)).toBe(0);
    expect(await model(5)).toBe(10);
    expect(model.calls.map((c) => c.source)).toEqual(['script', 'respond']);
  });

  it('describes requests that are not JSON in its errors', async () => {
    const model = createScriptedModel<string>();
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    await expect(model(cyclic)).rejects.toThrow('Request: [object Object]');
    await expect(model(undefined)).rejects.toThrow('Request: undefined');
    await expect(model(() => 1)).rejects.toThrow('Request: [function anonymous]');
    await expect(model(10n)).rejects.toThrow('Request: 10n');
    await expect(model('x'.repeat(600))).rejects.toThrow(/x…$/);
  });
});
