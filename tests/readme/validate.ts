// The README's second snippet (under "## Packages"): a model's JSON checked before anything uses it.
import { safeParseJson, validate } from '@parley/core';
import { z } from 'zod';

const Report = z.object({ summary: z.string(), key_levels: z.array(z.object({ evidence: z.string() })) });
const modelOutput = '{"summary":"BTC holds 60k","key_levels":[{"price":60000}]}'; // what the model wrote

const parsed = safeParseJson(modelOutput, { maxBytes: 64 * 1024 }); // refuses oversized, deep, __proto__
if (parsed.ok) {
  const result = validate(Report, parsed.value); // zod, valibot, arktype… any Standard Schema
  if (!result.ok) console.log({ missing_fields: result.missingFields }); // ask again for exactly these
} // prints { missing_fields: [ 'key_levels[0].evidence' ] }
