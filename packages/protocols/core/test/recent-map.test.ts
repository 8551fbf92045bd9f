import { describe, expect, it } from 'vitest';
import { createRecentMap, isParleyError } from '../src/index.js';

describe('createRecentMap', () => {
  it('keeps at most maxEntries and forgets the entry written longest ago first', () => {
    const evicted: string[] = [];
    const map = createRecentMap<string, number>({ maxEntries: 2, onEvict: (key) => evicted.push(key) });
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    expect([map.has('a'), map.get('b'), map.get('c'), map.size, evicted]).toEqual([false, 2, 3, 2, ['a']]);
  });

  it('makes a key written again with set the newest, with its new value', () => {
    const map = createRecentMap<string, number>({ maxEntries: 2 });
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10);
    map.set('c', 3);
    expect([map.get('a'), map.has('b'), map.get('c')]).toEqual([10, false, 3]);
  });

  it('leaves a held key and its place alone on add, and says whether it wrote', () => {
    const map = createRecentMap<string, number>({ maxEntries: 2 });
    expect(map.add('a', 1)).toBe(true);
    map.add('b', 2);
    expect(map.add('a', 10)).toBe(false);
    map.add('c', 3);
    expect([map.has('a'), map.get('b'), map.get('c')]).toEqual([false, 2, 3]);
  });

  it('calls onEvict for keys forgotten to make room, never for a key replaced by set', () => {
    const evicted: string[] = [];
    const map = createRecentMap<string, number>({ maxEntries: 3, onEvict: (key) => evicted.push(key) });
    for (let i = 0; i < 50; i++) map.set('same', i);
    expect([evicted, map.size, map.get('same')]).toEqual([[], 1, 49]);
  });

  it('forgets a deleted key without calling onEvict, and a key written again after it is the newest', () => {
    const evicted: string[] = [];
    const map = createRecentMap<string, number>({ maxEntries: 2, onEvict: (key) => evicted.push(key) });
    map.set('a', 1);
    map.set('b', 2);
    expect([map.delete('a'), map.delete('a'), map.size]).toEqual([true, false, 1]);
    map.set('a', 3); // its old place in the queue is stale: 'b' is now the oldest
    map.set('c', 4);
    expect([map.has('b'), map.get('a'), map.get('c'), evicted]).toEqual([false, 3, 4, ['b']]);
  });

  it('forgets keys in the order they were added through many compactions of its queue', () => {
    const evicted: string[] = [];
    const map = createRecentMap<string, number>({ maxEntries: 3, onEvict: (key) => evicted.push(key) });
    for (let i = 0; i < 100; i++) map.add(`k${i}`, i);
    map.set('k98', -1); // written again: now the newest, its first write stale
    map.delete('k97');
    for (let i = 100; i < 160; i++) map.add(`k${i}`, i);
    const expected = [...Array(97).keys(), 99, 98, ...Array.from({ length: 57 }, (_, i) => 100 + i)];
    expect(evicted).toEqual(expected.map((i) => `k${i}`));
    expect([map.size, map.has('k157'), map.has('k159'), map.has('k156')]).toEqual([3, true, true, false]);
  });

  it('matches a model of insertion order through many rewrites and deletes (the queue of writes is compacted)', () => {
    const max = 5;
    const map = createRecentMap<string, number>({ maxEntries: max });
    const model: string[] = [];
    let state = 7;
    for (let step = 0; step < 2_000; step++) {
      state = (state * 48_271) % 2_147_483_647; // a fixed pseudo-random walk, the same on every run
      const key = `k${state % 9}`;
      if (state % 7 === 0) {
        const at = model.indexOf(key);
        expect(map.delete(key)).toBe(at >= 0);
        if (at >= 0) model.splice(at, 1);
      } else if (state % 3 === 0) {
        if (!model.includes(key)) model.push(key);
        map.add(key, step);
      } else {
        const at = model.indexOf(key);
        if (at >= 0) model.splice(at, 1);
        model.push(key);
        map.set(key, step);
      }
      while (model.length > max) model.shift();
      expect(
        [...Array(9).keys()]
          .filter((k) => map.has(`k${k}`))
          .map((k) => `k${k}`)
          .sort(),
      ).toEqual([...model].sort());
    }
  });

  it.each([0, -1, 1.5, Number.NaN])('throws invalid_argument for maxEntries %s', (maxEntries) => {
    let thrown: unknown;
    try {
      createRecentMap({ maxEntries });
    } catch (error) {
      thrown = error;
    }
    expect(isParleyError(thrown, 'invalid_argument')).toBe(true);
  });
});
