import { END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { createManualClock, createMemoryStore } from '@parley/core';
import { createLedger, verifyLedger } from '@parley/ledger';
import { describe, expect, it } from 'vitest';
import { type NodeConfirmation, requestConfirmation, runWithConfirmation } from '../src/index.js';
import { chat, closedAfterEach, SESSION, State } from './helpers.js';

const open = closedAfterEach();

describe('a ledger given to the confirm gate a graph runs with', () => {
  it('receives the node’s request, prompt, answer, decision and authorization, and the chain verifies', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = createMemoryStore({ clock });
    const ledger = createLedger({ store, clock });
    const talk = await chat({ ledger }, { clock, store });
    open.push(talk.confirm);
    talk.answerWith('确认');
    const graph = new StateGraph(State)
      .addNode('drop', async (state) => ({
        answers: [
          await requestConfirmation(
            { name: 'drop_table', args: { table: state.table } },
            { key: 'drop', summary: `DROP TABLE ${state.table}` },
          ),
        ],
      }))
      .addEdge(START, 'drop')
      .addEdge('drop', END)
      .compile({ checkpointer: new MemorySaver() });
    const result = await runWithConfirmation<{ answers: NodeConfirmation[] }>(
      graph,
      { table: 'orders' },
      { configurable: { thread_id: 'l1' } },
      { confirm: talk.confirm, ...SESSION },
    );
    expect(result.answers[0]?.confirmed).toBe(true);
    const kinds = (await ledger.entries(SESSION.sessionKey)).map((entry) => entry.body.kind);
    expect(kinds).toEqual(['request', 'prompt_delivered', 'answer', 'decision', 'authorization']);
    expect(verifyLedger(await ledger.exportLines(SESSION.sessionKey))).toMatchObject({
      ok: true,
      entries: 5,
    });
  });
});
