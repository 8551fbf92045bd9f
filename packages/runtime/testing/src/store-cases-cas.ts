import type { StoreChange, StoreEntry } from '@parley/core';
import { checksFor } from './internal/check.js';
import type { StoreConformanceCase } from './store-conformance-types.js';

const { check, equal, rejects } = checksFor('Store conformance');

/** The Store cases about compare-and-set, listing, closing and watching. */
export const CAS_CASES: readonly StoreConformanceCase[] = [
  {
    group: 'compareAndSet',
    name: 'creates a key only when it is absent (expected version null)',
    async run(make) {
      const { store } = await make();
      const first = await store.compareAndSet('lock', null, 'a');
      check(first.ok, 'the first compareAndSet to win');
      const second = await store.compareAndSet('lock', null, 'b');
      equal(second, { ok: false, version: first.ok ? first.version : -1 }, 'the second compareAndSet');
      equal(await store.get('lock'), 'a', 'the stored value');
    },
  },
  {
    group: 'compareAndSet',
    name: 'writes only over the expected version, so exactly one of two racing writers wins',
    async run(make) {
      const { store } = await make();
      const version = await store.set('k', { state: 'pending' });
      const results = await Promise.all([
        store.compareAndSet('k', version, { state: 'approved' }),
        store.compareAndSet('k', version, { state: 'rejected' }),
      ]);
      equal(results.filter((r) => r.ok).length, 1, 'how many racing writers won');
      const winner = results.findIndex((r) => r.ok);
      equal(await store.get('k'), { state: winner === 0 ? 'approved' : 'rejected' }, 'the stored value');
      equal(results[1 - winner], { ok: false, version: (await store.getEntry('k'))?.version }, 'the loser');
    },
  },
  {
    group: 'compareAndSet',
    name: 'refuses a write over an absent key when a version is expected',
    async run(make) {
      const { store } = await make();
      equal(await store.compareAndSet('k', 3, 1), { ok: false, version: null }, 'the result');
      equal(await store.get('k'), undefined, 'the key');
    },
  },
  {
    group: 'compareAndSet',
    name: 'deletes under the same condition when the new value is undefined',
    async run(make) {
      const { store } = await make();
      const version = await store.set('k', 1);
      equal(
        (await store.compareAndSet('k', version + 100, undefined)).ok,
        false,
        'a delete at a wrong version',
      );
      equal(
        await store.compareAndSet('k', null, undefined),
        { ok: false, version },
        'a delete expecting absence',
      );
      equal(await store.get('k'), 1, 'the key after refused deletes');
      equal(await store.compareAndSet('k', version, undefined), { ok: true, version }, 'the delete');
      equal(await store.get('k'), undefined, 'the deleted key');
      equal(await store.compareAndSet('k', null, undefined), { ok: true, version: 0 }, 'a delete of nothing');
    },
  },
  {
    group: 'compareAndSet',
    name: 'sets the expiry given with a compare-and-set write',
    async run(make) {
      const { store } = await make();
      const result = await store.compareAndSet('k', null, 1, { ttlMs: 60_000 });
      check(result.ok, 'the compareAndSet to win');
      check(((await store.getEntry('k'))?.expiresAt ?? 0) > 0, 'an expiry');
    },
  },
  {
    name: 'lists entries by prefix only',
    async run(make) {
      const { store } = await make();
      const va = await store.set('confirm:a', 1);
      await store.set('confirm:b', 2, { ttlMs: 60_000 });
      await store.set('request:c', 3);
      const listed = await collect(store.list('confirm:'));
      equal(
        listed.map((e) => [e.key, e.value]),
        [
          ['confirm:a', 1],
          ['confirm:b', 2],
        ],
        'the entries under "confirm:"',
      );
      equal(listed[0], { key: 'confirm:a', value: 1, version: va, expiresAt: undefined }, 'the first entry');
      check((listed[1]?.expiresAt ?? 0) > 0, 'the expiry of the second entry');
      equal(await collect(store.list('none:')), [], 'the entries under "none:"');
      equal(keysIn(await collect(store.list(''))), ['confirm:a', 'confirm:b', 'request:c'], 'every key');
    },
  },
  {
    name: 'does not yield an entry deleted while listing',
    async run(make) {
      const { store } = await make();
      await store.set('p:1', 1);
      await store.set('p:2', 2);
      const seen: string[] = [];
      for await (const entry of store.list('p:')) {
        seen.push(entry.key);
        await store.delete(entry.key === 'p:1' ? 'p:2' : 'p:1');
      }
      equal(seen.length, 1, 'how many entries were yielded');
    },
  },
  {
    name: 'rejects every call with store_closed after close',
    async run(make) {
      const { store } = await make();
      await store.set('k', 1);
      await store.close();
      await rejects(store.get('k'), 'store_closed');
      await rejects(store.getEntry('k'), 'store_closed');
      await rejects(store.set('k', 1), 'store_closed');
      await rejects(store.delete('k'), 'store_closed');
      await rejects(store.compareAndSet('k', null, 1), 'store_closed');
      await rejects(collect(store.list('')), 'store_closed');
      if (store.watch !== undefined) {
        await rejects(
          Promise.resolve().then(() => store.watch?.('', () => {})),
          'store_closed',
        );
      }
    },
  },
  {
    group: 'watch',
    name: 'reports sets and deletes under the watched prefix only, until unsubscribed',
    async run(make) {
      const subject = await make();
      if (subject.watch === undefined) return;
      const { store } = subject;
      const seen: StoreChange[] = [];
      const marks = heard();
      const off = await subject.watch('confirm:', (change) => seen.push(change));
      await subject.watch('mark:', marks.listener);
      const v1 = await store.set('confirm:a', 1);
      await store.set('request:b', 1);
      const v2 = await store.set('confirm:c', 2);
      await store.delete('confirm:c');
      await store.delete('confirm:missing');
      await store.set('mark:1', 1);
      await marks.until(1);
      equal(
        seen,
        [
          { key: 'confirm:a', version: v1, kind: 'set' },
          { key: 'confirm:c', version: v2, kind: 'set' },
          { key: 'confirm:c', version: null, kind: 'delete' },
        ],
        'the changes heard under "confirm:"',
      );
      off();
      off(); // twice does nothing
      await store.set('confirm:d', 1);
      await store.set('mark:2', 1);
      await marks.until(2);
      equal(seen.length, 3, 'how many changes were heard after unsubscribing');
    },
  },
  {
    group: 'watch',
    name: 'reports compare-and-set writes, and nothing for a lost race',
    async run(make) {
      const subject = await make();
      if (subject.watch === undefined) return;
      const { store } = subject;
      const seen: string[] = [];
      const marks = heard();
      await subject.watch('', (change) => {
        seen.push(`${change.kind}:${change.key}`);
        marks.listener(change);
      });
      const first = await store.compareAndSet('k', null, 1);
      await store.compareAndSet('k', null, 2);
      await store.compareAndSet('k', first.ok ? first.version : 0, undefined);
      await store.set('end', 1);
      await marks.until(3);
      equal(seen, ['set:k', 'delete:k', 'set:end'], 'the changes heard');
    },
  },
];

async function collect(iterable: AsyncIterable<StoreEntry>): Promise<StoreEntry[]> {
  const out: StoreEntry[] = [];
  for await (const entry of iterable) out.push(entry);
  return out.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}

function keysIn(entries: readonly StoreEntry[]): string[] {
  return entries.map((entry) => entry.key);
}

/** Counts changes heard, and waits (without timers) until a number of them arrived. */
function heard(): { listener: (change: StoreChange) => void; until(count: number): Promise<void> } {
  let count = 0;
  const waiting: { count: number; resolve: () => void }[] = [];
  return {
    listener() {
      count++;
      for (const wait of waiting.filter((w) => w.count <= count)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve();
      }
    },
    until(target) {
      if (count >= target) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ count: target, resolve }));
    },
  };
}
