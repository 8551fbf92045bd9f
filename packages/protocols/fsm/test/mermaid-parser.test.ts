// toMermaid's output read by the real Mermaid parser (mermaid 11's own stateDiagram grammar, the
// one its renderer uses). Mermaid needs DOMPurify, which needs a DOM to sanitize; parsing never
// sanitizes a label, so the hooks mermaid installs at import are no-ops here.
import DOMPurify from 'dompurify';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineFlow, defineMachine, requestMachine, toMermaid } from '../src/index.js';
import { cleanupFlow } from './cleanup-flow.js';
import { orderMachine } from './helpers.js';

type MermaidApi = typeof import('mermaid').default;
let mermaid: MermaidApi;

beforeAll(async () => {
  const purify = DOMPurify as unknown as Record<string, unknown>;
  for (const hook of ['addHook', 'removeHook', 'removeHooks', 'removeAllHooks']) purify[hook] ??= () => {};
  purify['sanitize'] ??= (text: string) => text;
  mermaid = (await import('mermaid')).default;
});

interface Parsed {
  /** Each drawn state (but the start and end markers) → the text it shows. */
  readonly labels: Map<string, string>;
  readonly edges: readonly { from: string; to: string; label: string }[];
}

/** Parses a diagram with Mermaid and reads back its states and transitions. */
async function parse(text: string): Promise<Parsed> {
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
  const db = diagram.db as unknown as {
    getStates(): Map<string, { descriptions?: string[] }>;
    getRelations(): { id1: string; id2: string; relationTitle?: string }[];
  };
  const labels = new Map<string, string>();
  for (const [id, state] of db.getStates()) {
    if (!/^root_(start|end)$/.test(id)) labels.set(id, decode(state.descriptions?.[0] ?? id));
  }
  const edges = db
    .getRelations()
    .map((r) => ({ from: r.id1, to: r.id2, label: decode(r.relationTitle ?? '') }));
  return { labels, edges };
}

/** Mermaid keeps `#34;` as a placeholder until it renders; this is what the renderer shows. */
function decode(text: string): string {
  return text.replace(/ﬂ°°(\d+)¶ß/g, (_, code: string) => String.fromCodePoint(Number(code)));
}

function machineOf(names: readonly string[]) {
  const states: Record<string, { on?: Record<string, string> }> = {};
  names.forEach((name, i) => {
    const next = names[i + 1];
    states[name] = next === undefined ? {} : { on: { [`to ${next}`]: next } };
  });
  return defineMachine({ id: 'words', version: 1, initial: names[0] as string, context: {}, states });
}

const KEYWORDS = ['default', 'note', 'class', 'style', 'scale', 'state', 'click', 'href', 'classDef', 'Note'];

describe('toMermaid read by the Mermaid parser', () => {
  it('parses the drawn request, order and cleanup diagrams', async () => {
    for (const text of [toMermaid(requestMachine), toMermaid(orderMachine), toMermaid(cleanupFlow)]) {
      await expect(mermaid.parse(text)).resolves.toMatchObject({ diagramType: 'stateDiagram' });
    }
  });

  it('draws states named like Mermaid keywords as states labelled with their names', async () => {
    const { labels, edges } = await parse(toMermaid(machineOf(KEYWORDS)));
    expect([...labels.values()].sort()).toEqual([...KEYWORDS].sort());
    expect(edges).toHaveLength(KEYWORDS.length); // the start, then one transition between each pair
  });

  it('keeps apart states whose names differ only by punctuation', async () => {
    const names = [
      'wait-review',
      'wait_review',
      'wait review',
      'wait.review',
      'wait_review_2',
      'wait_review_3',
    ];
    const { labels, edges } = await parse(toMermaid(machineOf(names)));
    expect([...labels.values()].sort()).toEqual([...names].sort());
    const idOf = new Map([...labels].map(([id, label]) => [label, id]));
    expect(edges.find((e) => e.label === 'to wait_review')).toMatchObject({
      from: idOf.get('wait-review'),
      to: idOf.get('wait_review'),
    });
  });

  it('shows names and event labels holding quotes, hashes, colons and other text exactly', async () => {
    const names = ['say "hi"', '#1 choice', '已确认', '9lives', 'a:b', 'x#35;y', 'p;q'];
    const { labels, edges } = await parse(toMermaid(machineOf(names)));
    expect([...labels.values()].sort()).toEqual([...names].sort());
    expect(edges.map((e) => e.label)).toContain('to #1 choice');
    expect(edges.map((e) => e.label)).toContain('to x#35;y');
    expect(edges.map((e) => e.label)).toContain('to a:b');
    expect(edges.map((e) => e.label)).toContain('to p;q');
  });

  it('draws flow steps named like keywords or with punctuation as their own states', async () => {
    const step = (name: string) => ({ name, prompt: '?', fields: z.object({}) });
    const names = ['note', 'wait-review', 'wait_review', 'default'];
    const flow = defineFlow({ id: 'f', version: 1, steps: names.map(step) });
    const { labels, edges } = await parse(toMermaid(flow));
    expect([...labels.values()].sort()).toEqual([...names, 'done'].sort());
    expect(edges.filter((e) => e.to === 'root_end')).toHaveLength(1);
  });
});
