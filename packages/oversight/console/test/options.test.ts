import { createMemoryStore, isParleyError, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { type ConsoleOptions, createConsole, MAX_PAGE_SIZE, startConsole } from '../src/index.js';

const store = createMemoryStore();

describe('bad options', () => {
  it.each<[string, Partial<ConsoleOptions>]>([
    ['no store', { store: undefined as unknown as Store }],
    ['pageSize 0', { pageSize: 0 }],
    ['pageSize past MAX_PAGE_SIZE', { pageSize: MAX_PAGE_SIZE + 1 }],
    ['a fractional pageSize', { pageSize: 1.5 }],
    ['a negative refreshSeconds', { refreshSeconds: -1 }],
    ['a basePath with a trailing slash', { basePath: '/console/' }],
    ['a basePath with a quote', { basePath: '/a"b' }],
    [
      'an authenticate that is not a function',
      { authenticate: true as unknown as ConsoleOptions['authenticate'] },
    ],
    ['no claim prefix', { claimKeyPrefixes: [] }],
  ])('throws invalid_argument for %s', (_, bad) => {
    let caught: unknown;
    try {
      createConsole({ store, ...bad } as ConsoleOptions);
    } catch (error) {
      caught = error;
    }
    expect(isParleyError(caught, 'invalid_argument')).toBe(true);
  });

  it('throws invalid_argument for options that are not an object', () => {
    expect(() => createConsole(null as unknown as ConsoleOptions)).toThrow(/needs a store/);
  });

  it('refuses a port outside 0…65535', async () => {
    await expect(startConsole({ store, port: 70_000 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('names an IPv6 host in brackets in its URL', async () => {
    const running = await startConsole({ store, host: '::1' });
    expect(running.url).toMatch(/^http:\/\/\[::1\]:\d+\/$/);
    await running.close();
  });

  it('rejects when the port is taken', async () => {
    const first = await startConsole({ store });
    const port = Number(new URL(first.url).port);
    await expect(startConsole({ store, port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await first.close();
  });
});
