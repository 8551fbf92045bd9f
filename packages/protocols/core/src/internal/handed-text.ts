// The JSON text of a value the kernel has just serialised (to check its size) and hands to a store
// in the same call: the memory store of this package takes it instead of serialising the value a
// second time. Keyed weakly by the value, and taken once: a value handed over and never written
// leaves nothing behind.

const texts = new WeakMap<object, string>();

/** Remembers `text` as the JSON of `value` until a store of this package takes it. */
export function handOver(value: object, text: string): void {
  texts.set(value, text);
}

/** The JSON text handed over with `value`, if any; it is forgotten as it is taken. */
export function takeText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const text = texts.get(value);
  if (text !== undefined) texts.delete(value);
  return text;
}
