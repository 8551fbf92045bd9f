import { Command, END, interrupt, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  CONFIRM_INTERRUPT_KIND,
  type NodeConfirmation,
  requestConfirmation,
  runWithConfirmation,
} from '../src/index.js';
import { chat, closedAfterEach, SESSION, State } from './helpers.js';

const open = closedAfterEach();

/** A node that asks `times` confirmations in a row (one interrupt each), then reports them. */
function dropGraph(times = 1) {
  let effects = 0;
  const graph = new StateGraph(State)
    .addNode('drop', async (state) => {
      const answers: NodeConfirmation[] = [];
      for (let i = 0; i < times; i++) {
        answers.push(
          await requestConfirmation(
            { name: 'drop_table', args: { table: state.table, step: i } },
            { key: `step_${i}`, summary: `DROP TABLE ${state.table} (${i + 1}/${times})` },
          ),
        );
      }
      if (answers.every((answer) => answer.confirmed)) effects += 1;
      return { answers };
    })
    .addEdge(START, 'drop')
    .addEdge('drop', END)
    .compile({ checkpointer: new MemorySaver() });
  return { graph, effects: () => effects };
}

/** The first interrupt a run stopped on (LangGraph adds `__interrupt__` to the returned state). */
const interruptOf = (result: unknown): { id?: string; value?: unknown } | undefined =>
  (result as { __interrupt__?: { id?: string; value?: unknown }[] }).__interrupt__?.[0];

const config = (id: string) => ({ configurable: { thread_id: id } });

describe('requestConfirmation', () => {
  it('pauses the node with a confirmation interrupt and resumes it with the person answer', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    talk.answerWith('确认');
    const { graph, effects } = dropGraph();
    const result = await runWithConfirmation<{ answers: NodeConfirmation[] }>(
      graph,
      { table: 'orders' },
      config('a'),
      {
        confirm: talk.confirm,
        ...SESSION,
      },
    );
    expect(result.answers).toEqual([
      { confirmed: true, outcome: 'confirmed', decisionId: 'cfm_1', reason: 'reply' },
    ]);
    expect(effects()).toBe(1);
    expect(talk.channel.sent[0]?.text).toContain('DROP TABLE orders (1/1)');
  });

  it('raises the interrupt value other code can read', async () => {
    const { graph } = dropGraph();
    const result = await graph.invoke({ table: 'orders' }, config('b'));
    expect(interruptOf(result)?.value).toEqual({
      kind: CONFIRM_INTERRUPT_KIND,
      requests: [
        {
          key: 'step_0',
          action: { name: 'drop_table', args: { table: 'orders', step: 0 } },
          summary: 'DROP TABLE orders (1/1)',
        },
      ],
    });
  });

  it('is not confirmed by an answer about another action or a malformed resume value', async () => {
    const { graph, effects } = dropGraph();
    const first = await graph.invoke({ table: 'orders' }, config('c'));
    const id = String(interruptOf(first)?.id);
    const forged = await graph.invoke(
      new Command({
        resume: {
          [id]: { step_0: { outcome: 'confirmed', decisionId: 'cfm_9', digest: 'not-this-action' } },
        },
      }),
      config('c'),
    );
    expect(forged.answers).toEqual([{ confirmed: false, outcome: 'refused', decisionId: 'cfm_9' }]);
    const second = await graph.invoke({ table: 'users' }, config('d'));
    const malformed = await graph.invoke(
      new Command({ resume: { [String(interruptOf(second)?.id)]: 'yes' } }),
      config('d'),
    );
    expect(malformed.answers).toEqual([{ confirmed: false, outcome: 'refused', decisionId: undefined }]);
    const nulls = await graph.invoke({ table: 'jobs' }, config('d2'));
    const empty = await graph.invoke(
      new Command({ resume: { [String(interruptOf(nulls)?.id)]: { step_0: null } } }),
      config('d2'),
    );
    expect(empty.answers[0]?.confirmed).toBe(false);
    const third = await graph.invoke({ table: 'logs' }, config('e'));
    const partial = await graph.invoke(
      new Command({
        resume: { [String(interruptOf(third)?.id)]: { step_0: { outcome: 'confirmed' } } },
      }),
      config('e'),
    );
    expect(partial.answers[0]?.confirmed).toBe(false);
    expect(effects()).toBe(0);
  });

  it('rejects an action whose arguments are not JSON, before pausing', async () => {
    const graph = new StateGraph(State)
      .addNode('bad', async () => {
        await requestConfirmation({ name: 'x', args: { when: new Date(0) } as never });
        return {};
      })
      .addEdge(START, 'bad')
      .compile({ checkpointer: new MemorySaver() });
    await expect(graph.invoke({ table: 't' }, config('f'))).rejects.toSatisfy((error) =>
      isParleyError(error, 'invalid_action'),
    );
  });
});

describe('runWithConfirmation', () => {
  it('asks an action without arguments under its name, and answers refused when authorize says no', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    talk.answerWith('确认');
    const graph = new StateGraph(State)
      .addNode('reboot', async () => ({ answers: [await requestConfirmation({ name: 'reboot' })] }))
      .addEdge(START, 'reboot')
      .compile({ checkpointer: new MemorySaver() });
    // Another gate on the same store used the decision first (authorize is single use).
    const racing = {
      ...talk.confirm,
      authorize: async (...args: Parameters<typeof talk.confirm.authorize>) => {
        await talk.confirm.authorize(...args);
        return talk.confirm.authorize(...args);
      },
    };
    const used = await runWithConfirmation<{ answers: NodeConfirmation[] }>(
      graph,
      { table: '' },
      config('l'),
      {
        confirm: racing,
        ...SESSION,
      },
    );
    expect(used.answers).toEqual([
      { confirmed: false, outcome: 'refused', decisionId: 'cfm_1', reason: 'reply' },
    ]);
    expect(talk.channel.sent[0]?.text).toContain('reboot');
    const fine = await runWithConfirmation<{ answers: NodeConfirmation[] }>(
      graph,
      { table: '' },
      config('m'),
      {
        confirm: talk.confirm,
        ...SESSION,
      },
    );
    expect(fine.answers[0]?.confirmed).toBe(true);
  });

  it('asks each interrupt in turn, up to maxRounds, then throws too_many_rounds', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    talk.answerWith('确认');
    const { graph, effects } = dropGraph(3);
    const result = await runWithConfirmation<{ answers: NodeConfirmation[] }>(
      graph,
      { table: 'orders' },
      config('g'),
      {
        confirm: talk.confirm,
        ...SESSION,
      },
    );
    expect(result.answers.map((answer) => answer.confirmed)).toEqual([true, true, true]);
    expect(effects()).toBe(1);
    await expect(
      runWithConfirmation(dropGraph(3).graph, { table: 'orders' }, config('h'), {
        confirm: talk.confirm,
        ...SESSION,
        maxRounds: 2,
      }),
    ).rejects.toSatisfy((error) => isParleyError(error, 'too_many_rounds'));
  });

  it('stops on an interrupt that is not a confirmation and leaves it to the caller', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    const graph = new StateGraph(State)
      .addNode('ask', () => ({ table: interrupt<string, string>('Which table?') }))
      .addEdge(START, 'ask')
      .compile({ checkpointer: new MemorySaver() });
    const result = await runWithConfirmation<{ __interrupt__?: { value: unknown }[] }>(
      graph,
      { table: '' },
      config('i'),
      {
        confirm: talk.confirm,
        ...SESSION,
      },
    );
    expect(interruptOf(result)?.value).toBe('Which table?');
    expect(talk.channel.sent).toEqual([]);
  });

  it('aborts the wait with the signal: the node is answered aborted and nothing runs', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    const { graph, effects } = dropGraph();
    const controller = new AbortController();
    const prompted = talk.nextPrompt();
    const running = runWithConfirmation<{ answers: NodeConfirmation[] }>(
      graph,
      { table: 'orders' },
      config('j'),
      {
        confirm: talk.confirm,
        ...SESSION,
        signal: controller.signal,
      },
    );
    await prompted;
    controller.abort();
    expect((await running).answers).toEqual([
      { confirmed: false, outcome: 'aborted', decisionId: 'cfm_1', reason: 'signal' },
    ]);
    expect(effects()).toBe(0);
  });

  it('refuses a missing graph, thread id, gate or session, and a bad maxRounds', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    const { graph } = dropGraph();
    const run = { confirm: talk.confirm, ...SESSION };
    const attempts = [
      runWithConfirmation(undefined as never, {}, config('k'), run),
      runWithConfirmation(graph, {}, { configurable: {} }, run),
      runWithConfirmation(graph, {}, config('k'), { ...run, confirm: undefined as never }),
      runWithConfirmation(graph, {}, config('k'), { ...run, maxRounds: 0 }),
    ];
    for (const attempt of attempts) {
      await expect(attempt).rejects.toSatisfy((error) => isParleyError(error, 'invalid_argument'));
    }
  });
});
