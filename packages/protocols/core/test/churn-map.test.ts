import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ChurnMap, createChurnMap } from '../src/index.js';

/** A small seeded generator, so a failing sequence can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const same = <K, V>(ours: ChurnMap<K, V>, reference: Map<K, V>): void => {
  expect(ours.size).toBe(reference.size);
  expect([...ours]).toEqual([...reference]);
  expect([...ours.keys()]).toEqual([...reference.keys()]);
  expect([...ours.values()]).toEqual([...reference.values()]);
};

describe('createChurnMap', () => {
  it('answers as a Map: get, has, set, delete, size, clear, and insertion order', () => {
    const map = createChurnMap<string, number>([
      ['a', 1],
      ['b', 2],
    ]);
    expect(map.set('c', 3)).toBe(map);
    expect(map.get('b')).toBe(2);
    expect(map.has('z')).toBe(false);
    expect(map.get('z')).toBeUndefined();
    map.set('a', 10); // replaced in place: keeps its position
    expect([...map.entries()]).toEqual([
      ['a', 10],
      ['b', 2],
      ['c', 3],
    ]);
    expect(map.delete('b')).toBe(true);
    expect(map.delete('b')).toBe(false);
    const seen: string[] = [];
    map.forEach((value, key, self) => {
      expect(self).toBe(map);
      seen.push(`${key}=${value}`);
    });
    expect(seen).toEqual(['a=10', 'c=3']);
    map.clear();
    expect(map.size).toBe(0);
    expect([...map]).toEqual([]);
    // keys compare as in a Map: SameValueZero, objects by identity
    const key = {};
    const byObject = createChurnMap<unknown, string>();
    byObject.set(key, 'k').set(Number.NaN, 'nan').set(-0, 'zero');
    expect([byObject.get(key), byObject.get({}), byObject.get(Number.NaN), byObject.get(0)]).toEqual([
      'k',
      undefined,
      'nan',
      'zero',
    ]);
  });

  it('holds what a Map holds through any sequence of writes and deletions (it moves its entries many times)', () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      const ours = createChurnMap<number, number>();
      const reference = new Map<number, number>();
      for (let step = 0; step < 20_000; step++) {
        const key = Math.floor(next() * 300);
        const roll = next();
        if (roll < 0.45) {
          ours.set(key, step);
          reference.set(key, step);
        } else if (roll < 0.9) {
          expect(ours.delete(key)).toBe(reference.delete(key));
        } else {
          expect(ours.get(key)).toBe(reference.get(key));
          expect(ours.has(key)).toBe(reference.has(key));
        }
        if (step % 997 === 0) same(ours, reference);
      }
      same(ours, reference);
    }
  });

  it('iterates as a Map does while entries are deleted and added, and moves nothing meanwhile', () => {
    const ours = createChurnMap<number, string>();
    const reference = new Map<number, string>();
    for (let i = 0; i < 200; i++) {
      ours.set(i, `v${i}`);
      reference.set(i, `v${i}`);
    }
    for (let i = 0; i < 150; i++) {
      ours.delete(i); // enough deletions for the next new key to move the entries
      reference.delete(i);
    }
    const visit = (map: {
      keys(): Iterable<number>;
      delete(k: number): boolean;
      set(k: number, v: string): unknown;
    }) => {
      const visited: number[] = [];
      for (const key of map.keys()) {
        visited.push(key);
        if (key % 2 === 0) map.delete(key + 1); // deleted ahead: not visited
        if (key < 160) map.set(key + 1000, 'late'); // added during the walk: visited, as in a Map
      }
      return visited;
    };
    expect(visit(ours)).toEqual(visit(reference));
    same(ours, reference);
    // after the walk ended, the next new key may move the entries: nothing changes for the reader
    ours.set(5000, 'after');
    reference.set(5000, 'after');
    same(ours, reference);
  });

  it('ends an iteration under way when cleared, as a Map does', () => {
    const ours = createChurnMap<string, number>([
      ['a', 1],
      ['b', 2],
    ]);
    const visited: string[] = [];
    for (const key of ours.keys()) {
      visited.push(key);
      ours.clear();
    }
    expect(visited).toEqual(['a']);
    expect(ours.size).toBe(0);
  });

  it('stays a correct Map when an iteration is left unfinished', () => {
    const ours = createChurnMap<number, number>();
    const reference = new Map<number, number>();
    for (let i = 0; i < 100; i++) {
      ours.set(i, i);
      reference.set(i, i);
    }
    const walk = ours.values();
    const referenceWalk = reference.values();
    expect(walk.next().value).toBe(0); // started, never finished
    referenceWalk.next();
    for (let i = 0; i < 1000; i++) {
      ours.set(100 + i, i);
      reference.set(100 + i, i);
      ours.delete(i);
      reference.delete(i);
    }
    same(ours, reference);
    // the unfinished walk still reads the live map, as a Map's iterator would
    expect(walk.next().value).toBe(referenceWalk.next().value);
  });

  it('lets a young collection free what it no longer holds, where a busy Map does not (V8)', () => {
    // After one full collection, a busy Map's deleted values keep being promoted by young collections
    // (see churn-map.ts). Measured by V8 itself: bytes added to the old generation while churning
    // with only young collections, in a child process run with --expose-gc.
    const src = fileURLToPath(new URL('../src/churn-map.ts', import.meta.url));
    const script = `
      const { createChurnMap } = await import(${JSON.stringify(src)});
      const { getHeapSpaceStatistics } = await import('node:v8');
      const old = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
      const payload = (i) => ({ i, list: new Array(24).fill(i), text: 'v' + i });
      const promoted = async (map, dropOne = false) => {
        for (let i = 0; i < 200; i++) map.set('w' + i, payload(i));
        if (dropOne) map.keys().next(); // an iteration started and dropped unfinished
        globalThis.gc(); // a full collection: what the map holds now is old (and the dropped iterator is gone)
        await new Promise((resolve) => setTimeout(resolve, 10)); // finalizers run after the collection
        const before = old();
        for (let i = 0; i < 40000; i++) {
          map.set('k' + i, payload(i));
          map.delete(i < 200 ? 'w' + i : 'k' + (i - 200)); // 200 held at a time
          if (i % 2000 === 0) globalThis.gc({ type: 'minor' });
        }
        return old() - before;
      };
      const map = await promoted(new Map());
      const churn = await promoted(createChurnMap());
      const dropped = await promoted(createChurnMap(), true);
      console.log(JSON.stringify({ map, churn, dropped }));
    `;
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    const bytes = JSON.parse(out.trim().split('\n').at(-1) as string) as {
      map: number;
      churn: number;
      dropped: number;
    };
    // 40 000 values of about 300 bytes (12 MB) went through each map; 200 are held at the end. The
    // churn map promoted about 0.9 MB on Node 20 (what it held before it first moved its entries).
    expect(bytes.churn).toBeLessThan(2_500_000);
    // an iterator dropped unfinished holds the entries in place only until it is collected
    expect(bytes.dropped).toBeLessThan(2_500_000);
    // on Node 20 the busy Map promoted nearly all of them (10.6 MB); a V8 without the chain would not
    if (bytes.map > 4_000_000) expect(bytes.churn).toBeLessThan(bytes.map / 4);
  });
});
