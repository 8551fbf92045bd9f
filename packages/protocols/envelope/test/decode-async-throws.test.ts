import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCodec, defineIntents } from '../src/index.js';
import { fakes, text } from './helpers.js';

describe('decodeAsync with a payload schema that throws', () => {
  it('[SETTLE-09] refuses the envelope with invalid_payload instead of rejecting', async () => {
    const intents = defineIntents({
      notify: {
        direction: 'any',
        payload: z
          .object({ m: z.string() })
          .refine(async () => true)
          .transform((): { m: string } => {
            throw new Error('transform exploded');
          }),
      },
    });
    const codec = createCodec(intents, fakes());
    const result = await codec.decodeAsync(text({ intent: 'notify', payload: { m: 'yes' } }));
    expect(result).toMatchObject({
      ok: false,
      code: 'invalid_payload',
      missingFields: [],
      issues: [{ path: [], message: 'The payload could not be checked: its schema failed' }],
    });
  });
});
