// A run header's data as JSON, built without a text round trip when every field is a plain value.
import type { JsonValue } from '@parley/core';

/**
 * @internal What `JSON.parse(JSON.stringify(value))` gives for a run header: its own fields copied
 * when each is a string, a boolean or a finite number, and undefined ones left out; any other
 * value (an input, an object, a non-finite number, a `toJSON`) goes through the text round trip.
 */
export function encodeRunRecord(value: object): JsonValue {
  const source = value as unknown as Record<string, unknown>;
  if (typeof source['toJSON'] === 'function') return roundTrip(value);
  const data: Record<string, JsonValue> = {};
  for (const key of Object.keys(source)) {
    const field = source[key];
    if (field === undefined) continue;
    if (typeof field === 'string' || typeof field === 'boolean') data[key] = field;
    else if (typeof field === 'number' && Number.isFinite(field)) data[key] = field === 0 ? 0 : field;
    else return roundTrip(value);
  }
  return data;
}

const roundTrip = (value: object): JsonValue => JSON.parse(JSON.stringify(value)) as JsonValue;
