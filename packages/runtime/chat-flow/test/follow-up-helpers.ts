import type { JsonValue, Store } from '@parley/core';

/** The follow-up a store holds at `key` (the data of the kernel's record). */
export async function storedFollowUp(store: Store, key: string): Promise<JsonValue | undefined> {
  const record = (await store.get(key)) as { data: JsonValue } | undefined; // a kernel record
  return record?.data;
}

/** Writes over fields of the follow-up at `key`, as another process would (in the kernel's record). */
export async function patchFollowUp(
  store: Store,
  key: string,
  patch: Record<string, JsonValue>,
): Promise<void> {
  const record = (await store.get(key)) as { data: Record<string, JsonValue> }; // a kernel record
  await store.set(key, { ...record, data: { ...record.data, ...patch } });
}
