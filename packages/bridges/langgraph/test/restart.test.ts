import { HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { Command, MemorySaver } from '@langchain/langgraph';
import type { ConfirmDecision } from '@parley/confirm';
import { isParleyError, type Store } from '@parley/core';
import { describe, expect, it, vi } from 'vitest';
import {
  type ConfirmableGraph,
  type GraphResumed,
  graphResumeHandlers,
  runWithConfirmation,
} from '../src/index.js';
import { agentGraph, chat, closedAfterEach, resumeCollector, rowTools, SESSION } from './helpers.js';

const open = closedAfterEach();

const config = { configurable: { thread_id: 'thread-1' } };

/**
 * The first process: it stops (crashes) after the proposal, before the answer to its last prompt
 * comes back; the person answers the earlier prompts (`answeredFirst`) before the crash.
 */
async function proposeThenCrash(
  calls = [
    { id: 'c1', name: 'read_row', args: { id: 2 } },
    { id: 'c2', name: 'delete_row', args: { id: 1 } },
  ],
  answeredFirst = 0,
) {
  const checkpointer = new MemorySaver();
  const before = await chat();
  const table = rowTools();
  const { graph } = agentGraph(calls, {
    checkpointer,
    store: before.store,
    clock: before.clock,
    tools: table,
  });
  // Past the interrupt, the first process never gets to resume the thread: it has died.
  const crashing: ConfirmableGraph = {
    invoke: (input, options) =>
      input instanceof Command
        ? Promise.reject(new Error('process died'))
        : graph.invoke(input as never, options),
    getState: (options) => graph.getState(options),
  };
  let prompted = before.nextPrompt();
  const running = runWithConfirmation(crashing, { messages: [new HumanMessage('drop row 1')] }, config, {
    confirm: before.confirm,
    store: before.store,
    ...SESSION,
  });
  await prompted;
  for (let i = 0; i < answeredFirst; i++) {
    prompted = before.nextPrompt();
    await before.channel.say('g1', 'alice', '确认');
    await prompted;
  }
  await before.confirm.close();
  await running; // the closed gate's answer never resumed the thread (that invoke would have thrown)
  /** The restarted process's graph: same checkpointer, stores and table, a new graph and tools node. */
  const restartedGraph = () =>
    agentGraph([], { checkpointer, store: before.store, clock: before.clock, tools: table }).graph;
  return { before, table, restartedGraph };
}

describe('graphResumeHandlers (a restart between the proposal and the answer)', () => {
  it('resumes the thread from the checkpointer exactly once and runs the call once', async () => {
    const { before, table, restartedGraph } = await proposeThenCrash();
    expect(table.runs).toEqual({ delete_row: 0, read_row: 1 });
    // The restarted process: same checkpointer, same stores, a new graph, tools node and gate.
    const graph = restartedGraph();
    const { resumed, handled, onResumed } = resumeCollector();
    const handlers = graphResumeHandlers(graph, ['delete_row'], { onResumed });
    const after = await before.restart({ resume: handlers });
    open.push(after.confirm);
    await after.channel.say('g1', 'alice', '确认');
    await handled;
    await after.channel.say('g1', 'alice', '确认');
    expect(resumed).toMatchObject([{ resumed: true, threadId: 'thread-1' }]);
    const messages = (resumed[0] as { result: { messages: ToolMessage[] } }).result.messages.filter(
      (message) => message.getType() === 'tool',
    );
    expect(messages.map((message) => message.content)).toEqual(['beta', '{"deleted":1}']);
    expect(table.runs).toEqual({ delete_row: 1, read_row: 1 });

    // The same decision handed over again (another replica, a retry): the interrupt is gone.
    await handlers.delete_row?.((resumed[0] as { decision: ConfirmDecision }).decision, after.confirm);
    expect(resumed.at(-1)).toMatchObject({ resumed: false, code: 'not_pending' });
    expect(table.runs.delete_row).toBe(1);
  });

  it('keeps the answers given before the restart: the pending request is answered once, nothing asked again', async () => {
    const twoDeletes = [
      { id: 'c1', name: 'delete_row', args: { id: 1 } },
      { id: 'c2', name: 'delete_row', args: { id: 2 } },
    ];
    // c1 was confirmed before the crash; c2's prompt was out when the process died.
    const { before, table, restartedGraph } = await proposeThenCrash(twoDeletes, 1);
    expect(before.channel.sent.map((message) => message.text).join('\n')).toContain('DELETE row 2');
    const graph = restartedGraph();
    const resumed: GraphResumed[] = [];
    let done: (how: string) => void = () => {};
    const handled = new Promise<string>((resolve) => {
      done = resolve;
    });
    const handlers = graphResumeHandlers(graph, ['delete_row'], {
      store: before.store,
      onResumed: (event) => {
        resumed.push(event);
        done('resumed');
      },
    });
    const after = await before.restart({ resume: handlers });
    open.push(after.confirm);
    void after.nextPrompt().then(() => done('asked again'));
    await after.channel.say('g1', 'alice', '确认');
    expect(await handled).toBe('resumed');
    expect(after.channel.sent).toEqual([]);
    expect(resumed).toMatchObject([{ resumed: true, threadId: 'thread-1' }]);
    expect(table.runs.delete_row).toBe(2);
    expect([...table.rows.keys()]).toEqual([]);

    // Two resumers of the same decision at once (a retry, another replica): one resumes, no run twice.
    const decision = (resumed[0] as { decision: ConfirmDecision }).decision;
    await Promise.all([
      handlers.delete_row?.(decision, after.confirm),
      handlers.delete_row?.(decision, after.confirm),
    ]);
    expect(resumed.slice(1)).toMatchObject([
      { resumed: false, code: 'not_pending' },
      { resumed: false, code: 'not_pending' },
    ]);
    expect(table.runs.delete_row).toBe(2);
  });

  it('resumes an interrupt once when two resumers race for it', async () => {
    const { before, table, restartedGraph } = await proposeThenCrash();
    const graph = restartedGraph();
    const resumed: GraphResumed[] = [];
    const handlers = graphResumeHandlers(graph, ['delete_row'], {
      store: before.store,
      storePrefix: 'lg:',
      onResumed: (event) => void resumed.push(event),
    });
    const { after, decision } = await decidedAfterRestart(before); // the resumers are called by hand
    await Promise.all([
      handlers.delete_row?.(decision, after.confirm),
      handlers.delete_row?.(decision, after.confirm),
    ]);
    expect(resumed.map((event) => (event.resumed ? 'resumed' : event.code)).sort()).toEqual([
      'not_pending',
      'resumed',
    ]);
    expect(table.runs.delete_row).toBe(1);
  });

  it('never lets a resumer whose claim expired give away the claim another resumer took over', async () => {
    const { before, restartedGraph } = await proposeThenCrash();
    const graph = restartedGraph();
    const runs: { fail(error: Error): void }[] = []; // every resume of the interrupt, held until failed
    let thirdRun: () => void = () => {};
    const slow: ConfirmableGraph = {
      invoke: (input, options) =>
        input instanceof Command
          ? new Promise((_, reject) => {
              if (runs.push({ fail: reject }) === 3) thirdRun();
            })
          : graph.invoke(input as never, options),
      getState: (options) => graph.getState(options),
    };
    const resumed: GraphResumed[] = [];
    const handlers = graphResumeHandlers(slow, ['delete_row'], {
      store: before.store,
      clock: before.clock,
      onResumed: (event) => void resumed.push(event),
    });
    const { after, decision } = await decidedAfterRestart(before); // the resumers are called by hand
    const resumeOnce = () => handlers.delete_row?.(decision, after.confirm)?.catch((error: unknown) => error);
    const started = (count: number) =>
      vi.waitFor(() => expect(runs, `resume ${count} of the interrupt started`).toHaveLength(count));
    const a = resumeOnce();
    await started(1);
    after.clock.advance(5 * 60_000); // a is stuck past its claim (5 minutes): b takes the interrupt over
    const b = resumeOnce();
    await started(2);
    runs[0]?.fail(new Error('a failed late'));
    expect(await a).toMatchObject({ message: 'a failed late' });
    const third = new Promise<'resumed again'>((resolve) => {
      thirdRun = () => resolve('resumed again');
    });
    // b still holds the interrupt: a's late failure must not have given b's claim away
    expect(await Promise.race([resumeOnce(), third])).toBeUndefined();
    expect(resumed).toMatchObject([{ resumed: false, code: 'not_pending' }]);
    expect(runs).toHaveLength(2);
    runs[1]?.fail(new Error('b stopped'));
    expect(await b).toMatchObject({ message: 'b stopped' });
  });

  it.each([
    ['corrupt_record', 'not one', { data: { outcome: 1 } }],
    ['record_version', 'of another format', { version: 2 }],
  ] as const)(
    'refuses with %s a stored answer that is %s instead of asking again, running nothing',
    async (code, _what, change) => {
      const twoDeletes = [
        { id: 'c1', name: 'delete_row', args: { id: 1 } },
        { id: 'c2', name: 'delete_row', args: { id: 2 } },
      ];
      const { before, table, restartedGraph } = await proposeThenCrash(twoDeletes, 1); // c1 answered
      for await (const entry of before.store.list('langgraph:answer')) {
        await before.store.set(entry.key, { ...(entry.value as object), ...change });
      }
      const handlers = graphResumeHandlers(restartedGraph(), ['delete_row'], { store: before.store });
      const { after, decision } = await decidedAfterRestart(before);
      const error = await handlers.delete_row?.(decision, after.confirm)?.catch((caught: unknown) => caught);
      expect(isParleyError(error, code)).toBe(true);
      expect(after.channel.sent).toEqual([]);
      expect(table.runs.delete_row).toBe(0);
    },
  );

  it('rejects with store_failed, running nothing, when the claim to resume cannot be written', async () => {
    const { before, table, restartedGraph } = await proposeThenCrash();
    const store: Store = {
      ...before.store,
      get: (key) => before.store.get(key),
      getEntry: (key) => before.store.getEntry(key),
      set: (key, value, options) => before.store.set(key, value, options),
      delete: (key) => before.store.delete(key),
      list: (prefix) => before.store.list(prefix),
      close: () => before.store.close(),
      compareAndSet: (key, version, value, options) =>
        key.startsWith('langgraph:resumed')
          ? Promise.reject(new Error('store down'))
          : before.store.compareAndSet(key, version, value, options),
    };
    const handlers = graphResumeHandlers(restartedGraph(), ['delete_row'], { store });
    const { after, decision } = await decidedAfterRestart(before);
    const error = await handlers.delete_row?.(decision, after.confirm)?.catch((caught: unknown) => caught);
    expect(isParleyError(error, 'store_failed')).toBe(true);
    expect(table.runs.delete_row).toBe(0);
  });

  it('does not run the call when the restarted process hears the answer after the deadline', async () => {
    const { before, table, restartedGraph } = await proposeThenCrash();
    const graph = restartedGraph();
    const resumed: GraphResumed[] = [];
    const after = await before.restart({
      resume: graphResumeHandlers(graph, ['delete_row'], {
        onResumed: (event) => void resumed.push(event),
        timeoutMs: 60_000,
        maxRounds: 4,
      }),
    });
    open.push(after.confirm);
    const decided = new Promise((resolve) => after.confirm.on('decided', resolve));
    after.clock.advance(300_000);
    await decided;
    await after.channel.say('g1', 'alice', '确认');
    expect(table.runs.delete_row).toBe(0);
    expect(table.rows.has(1)).toBe(true);
  });

  it('reports a decision it cannot route, and refuses a missing graph', async () => {
    const { graph } = agentGraph([]);
    const talk = await chat();
    open.push(talk.confirm);
    const resumed: GraphResumed[] = [];
    const handlers = graphResumeHandlers(graph, ['x'], { onResumed: (event) => void resumed.push(event) });
    const decision = {
      id: 'cfm_x',
      sessionKey: 'feishu:g1',
      action: { name: 'x', args: { table: 'orders' }, digest: '00' },
      summary: 'x',
      requester: 'alice',
      outcome: 'confirmed',
      reason: 'reply',
      requestedAt: 0,
      decidedAt: 1,
    } as const;
    await handlers.x?.(decision, talk.confirm);
    await handlers.x?.({ ...decision, action: { ...decision.action, args: [] } }, talk.confirm);
    expect(resumed).toMatchObject([
      { resumed: false, code: 'unknown_decision' },
      { resumed: false, code: 'unknown_decision' },
    ]);
    expect(() => graphResumeHandlers(undefined as never, [])).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});

/** A restarted gate that only records the decision alice gives (确认); the resumers are called by hand. */
async function decidedAfterRestart(before: Awaited<ReturnType<typeof chat>>) {
  let decided: (decision: ConfirmDecision) => void = () => {};
  const recorded = new Promise<ConfirmDecision>((resolve) => {
    decided = resolve;
  });
  const after = await before.restart({ resume: { delete_row: (decision) => decided(decision) } });
  open.push(after.confirm);
  await after.channel.say('g1', 'alice', '确认');
  return { after, decision: await recorded };
}
