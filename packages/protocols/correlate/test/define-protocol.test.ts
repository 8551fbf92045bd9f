import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineProtocol, type ProtocolDefinition } from '../src/index.js';
import { errorOf } from './helpers.js';

type Definition = ProtocolDefinition<z.ZodString, z.ZodString>;
const schemas: Definition = { request: z.string(), response: z.string() };

describe('defineProtocol refusals', () => {
  it.each([
    ['a name that is not a string', 7 as never, schemas, 'invalid_argument', { name: 7 }],
    ['an empty name', '', schemas, 'invalid_argument', { name: '' }],
    [
      'a response schema that is not a Standard Schema',
      'p',
      { ...schemas, response: {} as never },
      'invalid_argument',
      { protocol: 'p' },
    ],
    ['a timeoutMs of zero', 'p', { ...schemas, timeoutMs: 0 }, 'invalid_timeout', { name: 'timeoutMs' }],
    [
      'a negative humanTimeoutMs',
      'p',
      { ...schemas, humanTimeoutMs: -1 },
      'invalid_timeout',
      { name: 'humanTimeoutMs' },
    ],
    [
      'a maxTotalMs that is not a number',
      'p',
      { ...schemas, maxTotalMs: '10' as never },
      'invalid_timeout',
      { name: 'maxTotalMs' },
    ],
  ])('refuses %s, naming it in the details', (_name, name: string, definition: Definition, code, details) => {
    expect(errorOf(() => defineProtocol(name, definition))).toMatchObject({ code, details });
  });
});

describe('the default decide', () => {
  it('rejects a null response as no verdict', () => {
    const p = defineProtocol('p', { request: z.unknown(), response: z.unknown() });
    expect(p.decide(null)).toEqual({ approve: false, reason: 'no_verdict' });
  });
});
