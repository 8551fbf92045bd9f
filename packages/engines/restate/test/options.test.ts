// defineRequests checks its options before anything runs.
import { isParleyError } from '@parley/core';
import { defineProtocol, shutdownProtocol } from '@parley/correlate';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRequests } from '../src/index.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isParleyError(error) ? error.code : 'not a Parley error';
  }
  return undefined;
}

describe('defineRequests options', () => {
  it.each([
    ['an empty name', { name: '', protocols: [shutdownProtocol] }],
    ['no protocols', { name: 'r', protocols: [] }],
    ['two protocols of one name', { name: 'r', protocols: [shutdownProtocol, shutdownProtocol] }],
    ['a maxWatchers of 0', { name: 'r', protocols: [shutdownProtocol], maxWatchers: 0 }],
    ['a fractional maxWatchers', { name: 'r', protocols: [shutdownProtocol], maxWatchers: 1.5 }],
  ])('refuses %s (invalid_argument)', (_name, options) => {
    expect(codeOf(() => defineRequests(options))).toBe('invalid_argument');
  });

  it('takes any number of distinct protocols', () => {
    const deploy = defineProtocol('deploy', { request: z.string(), response: z.boolean() });
    expect(defineRequests({ name: 'r', protocols: [shutdownProtocol, deploy] }).name).toBe('r');
  });
});
