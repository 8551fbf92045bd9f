// trpgConflictPolicy and trpgHistoryMode through the public API, on a real settings service: the
// switches turned off, a campaign's K against the global one, and each history mode.
import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createSettings, GLOBAL } from '@parley/settings';
import { trpgSettings } from '../src/settings.js';
import { trpgConflictPolicy, trpgHistoryMode } from '../src/settings-policy.js';

function service() {
  const clock = createManualClock({ now: 0 });
  return createSettings(trpgSettings, { store: createMemoryStore({ clock }), clock });
}

describe('trpgConflictPolicy', () => {
  it('reads K and both switches of the campaign, over the global layer', async () => {
    const settings = service();
    await settings.set(GLOBAL, 'conflict.max_retries', 5);
    await settings.set('camp', 'conflict.intercept_output', false);
    await settings.set('camp', 'conflict.retry_with_debug', false);
    expect(trpgConflictPolicy(await settings.snapshot('camp'))).toEqual({
      maxRetries: 5,
      interceptOutput: false,
      retryWithDebug: false,
    });
    await settings.set('camp', 'conflict.max_retries', 0);
    expect(trpgConflictPolicy(await settings.snapshot('camp')).maxRetries).toBe(0);
  });
});

describe('trpgHistoryMode', () => {
  it('gives full over compression, summary with compression, recent with neither', async () => {
    const settings = service();
    const mode = async () => trpgHistoryMode(await settings.snapshot('camp'));
    expect(await mode()).toBe('summary');
    await settings.set('camp', 'context.compress_enabled', false);
    expect(await mode()).toBe('recent');
    await settings.set('camp', 'context.full_context_enabled', true);
    expect(await mode()).toBe('full');
  });
});
