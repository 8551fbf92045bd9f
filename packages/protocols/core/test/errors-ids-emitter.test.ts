import { describe, expect, it, vi } from 'vitest';
import {
  CORE_ERROR_CODES,
  CoreError,
  createEmitter,
  createIdGenerator,
  createSequentialIds,
  generateId,
  isParleyError,
  ParleyError,
} from '../src/index.js';

describe('ParleyError', () => {
  class DemoError extends ParleyError<'declined' | 'expired'> {}

  it('carries a code, a message, frozen details and a cause', () => {
    const cause = new Error('upstream');
    const error = new DemoError('declined', 'Card declined', { details: { last4: '4242' }, cause });
    expect(error.code).toBe('declined');
    expect(error.message).toBe('Card declined');
    expect(error.name).toBe('DemoError');
    expect(error.details).toEqual({ last4: '4242' });
    expect(Object.isFrozen(error.details)).toBe(true);
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(Error);
  });

  it('has empty details and no cause by default', () => {
    const error = new DemoError('expired', 'Expired');
    expect(error.details).toEqual({});
    expect('cause' in error).toBe(false);
  });

  it('serialises to plain JSON without the stack', () => {
    const error = new DemoError('expired', 'Expired', { details: { id: 'x' } });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'DemoError',
      code: 'expired',
      message: 'Expired',
      details: { id: 'x' },
    });
  });
});

describe('isParleyError', () => {
  it('recognises Parley errors and filters by code', () => {
    const error = new CoreError('json_syntax', 'bad');
    expect(isParleyError(error)).toBe(true);
    expect(isParleyError(error, 'json_syntax')).toBe(true);
    expect(isParleyError(error, 'json_syntax', 'json_too_deep')).toBe(true);
    expect(isParleyError(error, 'json_too_deep')).toBe(false);
  });

  it('recognises an error from another copy of the package by its shared marker', () => {
    const foreign = Object.assign(new Error('x'), { code: 'timeout' });
    Object.defineProperty(foreign, Symbol.for('@parley/error'), { value: true });
    expect(isParleyError(foreign, 'timeout')).toBe(true);
  });

  it('rejects plain errors and non-objects', () => {
    for (const value of [
      new Error('x'),
      Object.assign(new Error('x'), { code: 'timeout' }),
      null,
      'x',
      1,
      undefined,
    ]) {
      expect(isParleyError(value)).toBe(false);
    }
  });

  it('lists every core code once', () => {
    expect(new Set(CORE_ERROR_CODES).size).toBe(CORE_ERROR_CODES.length);
  });
});

describe('ids', () => {
  it('generateId returns distinct 21-character URL-safe ids with an optional prefix', () => {
    const ids = new Set(Array.from({ length: 1_000 }, () => generateId()));
    expect(ids.size).toBe(1_000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{21}$/);
    expect(generateId('cfm_')).toMatch(/^cfm_[A-Za-z0-9_-]{21}$/);
  });

  it('createIdGenerator honours prefix and size', () => {
    expect(createIdGenerator({ prefix: 'req_', size: 12 })()).toMatch(/^req_[A-Za-z0-9_-]{12}$/);
    expect(createIdGenerator()()).toMatch(/^[A-Za-z0-9_-]{21}$/);
  });

  it('createIdGenerator wraps a host generator and still adds the prefix', () => {
    const next = createIdGenerator({ prefix: 'x-', generate: createSequentialIds('', 7) });
    expect([next(), next()]).toEqual(['x-7', 'x-8']);
  });

  it.each([7, 65, 10.5])('createIdGenerator refuses size %s with invalid_argument', (size) => {
    expect(() => createIdGenerator({ size })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('createSequentialIds counts from 1 by default', () => {
    const next = createSequentialIds();
    expect([next(), next(), next()]).toEqual(['id_1', 'id_2', 'id_3']);
  });
});

describe('createEmitter', () => {
  interface Events {
    settled: { id: string };
    refused: { code: string };
  }

  it('delivers the payload to every listener of the event only', () => {
    const events = createEmitter<Events>();
    const settled = vi.fn();
    const refused = vi.fn();
    events.on('settled', settled);
    events.on('refused', refused);
    expect(events.emit('settled', { id: 'a' })).toBe(true);
    expect(settled).toHaveBeenCalledWith({ id: 'a' });
    expect(refused).not.toHaveBeenCalled();
    expect(events.emit('refused', { code: 'x' })).toBe(true);
  });

  it('returns an unsubscribe function that is safe to call twice', () => {
    const events = createEmitter<Events>();
    const listener = vi.fn();
    const off = events.on('settled', listener);
    off();
    off();
    expect(events.emit('settled', { id: 'a' })).toBe(false);
    expect(listener).not.toHaveBeenCalled();
    expect(events.listenerCount('settled')).toBe(0);
  });

  it('once listeners run a single time, and can be removed before they run', () => {
    const events = createEmitter<Events>();
    const first = vi.fn();
    const never = vi.fn();
    events.once('settled', first);
    const off = events.once('settled', never);
    off();
    events.emit('settled', { id: 'a' });
    events.emit('settled', { id: 'b' });
    expect(first).toHaveBeenCalledTimes(1);
    expect(never).not.toHaveBeenCalled();
  });

  it('keeps calling other listeners when one throws, and reports the error', () => {
    const onListenerError = vi.fn();
    const events = createEmitter<Events>({ onListenerError });
    const after = vi.fn();
    const boom = new Error('listener bug');
    events.on('settled', () => {
      throw boom;
    });
    events.on('settled', after);
    expect(() => events.emit('settled', { id: 'a' })).not.toThrow();
    expect(after).toHaveBeenCalledOnce();
    expect(onListenerError).toHaveBeenCalledWith(boom, 'settled');
  });

  it('by default rethrows a listener error in a microtask, never into emit', () => {
    const scheduled: (() => void)[] = [];
    const spy = vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => {
      scheduled.push(task);
    });
    try {
      const events = createEmitter<Events>();
      events.on('settled', () => {
        throw new Error('late');
      });
      expect(() => events.emit('settled', { id: 'a' })).not.toThrow();
      expect(scheduled).toHaveLength(1);
      expect(() => scheduled[0]?.()).toThrow('late');
    } finally {
      spy.mockRestore();
    }
  });

  it('removeAllListeners clears one event or all', () => {
    const events = createEmitter<Events>();
    events.on('settled', () => {});
    events.on('refused', () => {});
    events.removeAllListeners('settled');
    expect(events.listenerCount('settled')).toBe(0);
    expect(events.listenerCount('refused')).toBe(1);
    events.removeAllListeners();
    expect(events.listenerCount('refused')).toBe(0);
  });
});
