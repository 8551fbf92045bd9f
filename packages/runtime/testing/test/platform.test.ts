import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFakeClock, createFakePlatform, type PlatformRequest } from '../src/index.js';

const takedown = (...targets: string[]): PlatformRequest => ({ action: 'takedown', targets });

describe('createFakePlatform: outcomes', () => {
  it('returns success, partial and failed results in script order', async () => {
    const platform = createFakePlatform({
      script: [
        'success',
        { outcome: 'partial', failTargets: ['b'] },
        'failed',
        { outcome: 'failed', error: { code: 'auth_expired', message: 'Token expired', retryable: true } },
      ],
    });
    expect(await platform.execute(takedown('a', 'b'))).toEqual({
      status: 'success',
      completed: ['a', 'b'],
      errors: [],
    });
    expect(await platform.execute(takedown('a', 'b'))).toEqual({
      status: 'partial',
      completed: ['a'],
      errors: [
        {
          target: 'b',
          code: 'platform_error',
          message: 'takedown failed for b (scripted)',
          retryable: false,
        },
      ],
    });
    expect(await platform.execute(takedown('a'))).toEqual({
      status: 'failed',
      completed: [],
      errors: [{ code: 'platform_error', message: 'takedown failed (scripted)', retryable: false }],
    });
    expect((await platform.execute(takedown('a'))).errors).toEqual([
      { code: 'auth_expired', message: 'Token expired', retryable: true },
    ]);
    expect(platform.timesCompleted('a')).toBe(2);
    expect(platform.timesCompleted('b')).toBe(1);
    expect(platform.timesCompleted('zzz')).toBe(0);
  });

  it('records every call with its request and result', async () => {
    const clock = createFakeClock({ now: 7 });
    const platform = createFakePlatform({ clock, otherwise: { outcome: 'success' } });
    const request = { action: 'delete', targets: ['m1'], params: { hard: true } };
    await platform.execute(request);
    expect(platform.calls).toEqual([
      { n: 1, request, at: 7, status: 'done', result: { status: 'success', completed: ['m1'], errors: [] } },
    ]);
  });

  it('derives partial and failed outcomes from targets failing every time', async () => {
    const platform = createFakePlatform({ otherwise: 'success' });
    platform.failTarget('gone', { code: 'not_found' });
    platform.failTarget('locked');
    expect(await platform.execute(takedown('ok', 'gone'))).toMatchObject({
      status: 'partial',
      completed: ['ok'],
      errors: [{ target: 'gone', code: 'not_found' }],
    });
    expect(await platform.execute(takedown('gone', 'locked'))).toMatchObject({
      status: 'failed',
      errors: [{ target: 'gone' }, { target: 'locked', code: 'platform_error' }],
    });
  });

  it('answers with a function of the request', async () => {
    const platform = createFakePlatform({
      otherwise: {
        respond: (request, call) => ({
          status: 'success',
          completed: [...request.targets, `#${call.n}`],
          errors: [],
        }),
      },
    });
    expect((await platform.execute(takedown('x'))).completed).toEqual(['x', '#1']);
  });
});

describe('createFakePlatform: failures', () => {
  it('rejects an unscripted call, naming the call and the request', async () => {
    const platform = createFakePlatform({ script: ['success'] });
    await platform.execute(takedown('a'));
    const error = await platform.execute(takedown('b')).catch((err: unknown) => err);
    expect(isParleyError(error, 'unscripted_call')).toBe(true);
    expect((error as Error).message).toBe(
      'FakePlatform: unscripted call #2 — the script answered 1 call and has nothing left, and no `otherwise` was given. Request: {"action":"takedown","targets":["b"]}',
    );
    expect(platform.calls[1]).toMatchObject({ status: 'threw', error });
    expect(platform.timesCompleted('b')).toBe(0);
  });

  it('throws like a broken transport, and refuses malformed requests', async () => {
    const reset = new Error('ECONNRESET');
    const platform = createFakePlatform({ script: [{ throws: reset }], otherwise: 'success' });
    await expect(platform.execute(takedown('a'))).rejects.toBe(reset);
    for (const bad of [
      null,
      { action: '', targets: [] },
      { action: 'x', targets: 'a' },
      { action: 'x', targets: [1] },
    ]) {
      await expect(platform.execute(bad as unknown as PlatformRequest)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
    expect(platform.calls.map((c) => c.status)).toEqual(['threw', 'threw', 'threw', 'threw', 'threw']);
    expect(platform.timesCompleted('a')).toBe(0);
  });

  it('refuses a partial step whose failing targets do not fit the request', async () => {
    const platform = createFakePlatform({
      script: [
        { outcome: 'partial', failTargets: ['x'] },
        { outcome: 'partial', failTargets: ['a', 'b'] },
        { outcome: 'partial', failTargets: [] },
      ],
    });
    await expect(platform.execute(takedown('a', 'b'))).rejects.toThrow(
      'FakePlatform: call #1 was scripted partial with failTargets ["x"], but the request\'s targets are ["a","b"]',
    );
    await expect(platform.execute(takedown('a', 'b'))).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(platform.execute(takedown('a', 'b'))).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('answers late on the clock, hangs until aborted', async () => {
    const clock = createFakeClock();
    const platform = createFakePlatform({
      clock,
      name: 'x.com',
      script: [{ outcome: 'success', delayMs: 100 }, { hang: true }],
    });
    const slow = platform.execute(takedown('a'));
    expect(platform.calls[0]?.status).toBe('pending');
    clock.advance(100);
    expect((await slow).status).toBe('success');
    const controller = new AbortController();
    const hung = platform.execute(takedown('b'), { signal: controller.signal });
    controller.abort(new Error('operator cancelled'));
    await expect(hung).rejects.toThrow('operator cancelled');
    expect(platform.timesCompleted('b')).toBe(0);
    expect(() => createFakePlatform({ otherwise: { outcome: 'success', delayMs: 1 } })).toThrow(
      expect.objectContaining({ code: 'clock_required' }),
    );
  });

  it('is scripted after creation and asserts every step was used', async () => {
    const platform = createFakePlatform({ name: 'x.com' });
    platform.enqueue('success', 'failed');
    expect(platform.remaining).toBe(2);
    await platform.execute(takedown('a'));
    expect(() => platform.assertAllUsed()).toThrow(
      'x.com: expected every scripted step to be used, but 1 step is left after 1 call',
    );
    await platform.execute(takedown('a'));
    expect(() => platform.assertAllUsed()).not.toThrow();
    platform.enqueue('success', 'success');
    expect(() => platform.assertAllUsed()).toThrow(/2 steps are left after 2 calls/);
  });
});
