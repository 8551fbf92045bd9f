// The open sessions of a host in use order, the most recently used `hot` of them hot: each session
// that falls out of the hot ones is told to `cool` once, whichever way it falls out.
import { describe, expect, it } from 'vitest';
import { OpenSessions } from '../src/chat-host-open.js';

type S = { readonly id: string };
const s = (id: string): S => ({ id });

function rig(hot: number) {
  const cooled: string[] = [];
  const open = new OpenSessions<S>(hot, (session) => void cooled.push(session.id));
  return { open, cooled };
}

describe('OpenSessions: the hot ones', () => {
  it('cools the least recently used hot session when one more becomes hot', () => {
    const { open, cooled } = rig(2);
    for (const id of ['a', 'b', 'c', 'd']) open.add(s(id));
    expect(cooled).toEqual(['a', 'b']);
    expect(open.values().map((x) => x.id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('makes a cool session hot again when used, cooling the oldest hot one', () => {
    const { open, cooled } = rig(2);
    for (const id of ['a', 'b', 'c']) open.add(s(id));
    expect(open.use('a')?.id).toBe('a'); // cold until now
    expect(cooled).toEqual(['a', 'b']);
    open.use('c'); // hot already: nothing cools
    open.use('c');
    expect(cooled).toEqual(['a', 'b']);
    open.add(s('d'));
    expect(cooled).toEqual(['a', 'b', 'a']); // hot now: a, then c, d
  });

  it('keeps its count when a hot or a cold session is let go', () => {
    const { open, cooled } = rig(2);
    const a = s('a');
    const b = s('b');
    const c = s('c');
    open.add(a);
    open.add(b);
    open.delete(a); // the least recently used hot one
    open.add(c); // two hot again: b and c, nothing cooled
    expect(cooled).toEqual([]);
    open.delete(c); // the most recently used
    open.add(s('d'));
    open.add(s('e'));
    expect(cooled).toEqual(['b']);
    open.delete(b); // cold: the hot ones stay d and e
    open.add(s('f'));
    expect(cooled).toEqual(['b', 'd']);
    expect(open.values().map((x) => x.id)).toEqual(['d', 'e', 'f']);
  });

  it('cools nothing with no bound', () => {
    const cooled: string[] = [];
    const open = new OpenSessions<S>(Number.POSITIVE_INFINITY, (session) => void cooled.push(session.id));
    for (let i = 0; i < 100; i++) open.add(s(`c${i}`));
    expect(cooled).toEqual([]);
    expect(open.size).toBe(100);
  });
});
