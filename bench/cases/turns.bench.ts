// One turn of a model-driven host on the memory store, with a proposal that makes one tool call.
//
// @parley/turns' runner: takes the head's lease and marks the turn open in the same write (a
// fenced kernel record in the store), puts the committed present back into the host when it is not there, runs
// the conflict loop with the tool gate (the gate's checks, its at-most-once memory, the conflict
// detectors on the reply), builds the record with `complete`, commits the state, the record, the
// gate's disabled tools and the end of the lease in one compare-and-set of the head, and
// takes a checkpoint (a snapshot record plus the checkpoint log, a kernel record).
//
// By hand, the same guarantees with no Parley piece: the head read from a `Map` store that keeps
// JSON text with a version (as a remote store would), the model's proposal awaited, each tool call
// through the hand-written at-most-once gate (`../hand-gate.ts`: allowlist, zod, a call id runs at
// most once per turn, a reused id with other content refused), the state copied, the head (turn,
// state, record) written with a compare-and-set on the version read, and a checkpoint
// record written (the one past the fifth deleted). It leaves out the lease (two hosts would be told
// apart only by the compare-and-set failing), the open-turn mark, the submission journal, the
// conflict detectors, the checkpoint log (so no rollback or undo), the gate's caps and records,
// and events.
// Next to a model call (hundreds of ms) both are noise; the goal guards against a regression.
import type { Proposal } from '@parley/conflict';
import { createMemoryStore } from '@parley/core';
import { createToolGate, defineTool } from '@parley/tools';
import { createTurnRunner } from '@parley/turns';
import { EventEmitter } from 'node:events';
import { nanoid } from 'nanoid';
import { z } from 'zod';
import { createHandGate } from '../hand-gate.js';
import { suite } from '../lib.js';

const HAND = 'hand-written loop: at-most-once gate, CAS head, checkpoint record';
const HAND_KEPT = 'hand-written loop + lease, open mark, checkpoint log';
const HAND_GUARDED = 'hand-written loop with every guarantee the runner keeps';

/** A `Map` store that keeps JSON text and a version per key, with a compare-and-set. */
function createMapStore() {
  const data = new Map<string, { version: number; json: string }>();
  let versions = 0;
  return {
    get(key: string): { version: number; value: unknown } | undefined {
      const slot = data.get(key);
      return slot === undefined ? undefined : { version: slot.version, value: JSON.parse(slot.json) };
    },
    compareAndSet(key: string, expected: number | null, value: unknown): number | undefined {
      if ((data.get(key)?.version ?? null) !== expected) return undefined;
      const version = ++versions;
      data.set(key, { version, json: JSON.stringify(value) });
      return version;
    },
    delete: (key: string): boolean => data.delete(key),
  };
}

interface Game {
  hp: number;
  at: string;
}

function makeHost() {
  const host = { state: { hp: 1_000_000, at: 'gate' } as Game };
  const hit = defineTool({
    name: 'hit',
    description: 'Deals damage',
    args: z.object({ damage: z.number().int() }),
    reasons: [],
    execute: ({ damage }) => {
      host.state = { ...host.state, hp: host.state.hp - damage };
      return host.state.hp;
    },
  });
  const gate = createToolGate({ tools: [hit], allowlist: ['hit'] });
  const proposal: Proposal = {
    text: 'You lose 1 HP.',
    tool_calls: [{ id: 'c1', tool: 'hit', args: { damage: 1 } }],
  };
  return { host, gate, proposal };
}

/** The host of both hand loops: its state, the hand-written gate with the `hit` tool, and the proposal. */
function makeHandHost() {
  const host = { state: { hp: 1_000_000, at: 'gate' } as Game };
  const gate = createHandGate({
    hit: {
      args: z.object({ damage: z.number().int() }),
      execute: ({ damage }: { damage: number }) => {
        host.state = { ...host.state, hp: host.state.hp - damage };
        return host.state.hp;
      },
    },
  });
  const proposal = {
    text: 'You lose 1 HP.',
    tool_calls: [{ id: 'c1', tool: 'hit', args: { damage: 1 } }],
  };
  return { host, gate, proposal };
}

interface Head {
  turn: number;
  state: Game;
  record: unknown;
  lease: { owner: string; expiresAt: number } | null;
  open: { turnId: string; input: string; startedAt: number } | null;
  last: { turnId: string; input: string } | null;
}

interface Log {
  checkpoints: { id: string; at: number; label: string; ref: string }[];
}

/** A settled turn kept in the guarded loop's submission journal. */
interface Settled {
  key: string;
  content: string;
  at: number;
}

/** The proposal's shape, as the conflict loop checks it: text, at most 16 calls, ids unique, arguments objects. */
function checkProposal(proposal: {
  text: unknown;
  tool_calls: readonly { id: unknown; tool: unknown; args: unknown }[];
}) {
  if (
    typeof proposal.text !== 'string' ||
    !Array.isArray(proposal.tool_calls) ||
    proposal.tool_calls.length > 16
  ) {
    throw new Error('conflict: not a proposal');
  }
  const ids = new Set<unknown>();
  for (const call of proposal.tool_calls) {
    if (typeof call.id !== 'string' || call.id === '' || ids.has(call.id) || typeof call.tool !== 'string') {
      throw new Error('conflict: a call without a fresh id or a tool');
    }
    if (typeof call.args !== 'object' || call.args === null || Array.isArray(call.args)) {
      throw new Error('conflict: arguments that are not an object');
    }
    ids.add(call.id);
  }
}

/**
 * The goal's hand loop plus the three guarantees it leaves out, still with no Parley piece: before
 * the model call, the head is written with a lease (owner and expiry) and the open turn (its id and
 * input), so that a second host is fenced off and a restarted one finds the turn it crashed in; the
 * commit clears both; the checkpoint is a snapshot record under a new key plus a checkpoint log
 * (id, time, label, key of the last five), written with a compare-and-set, so a host can roll back.
 * Still left out: the submission journal's replay, the conflict detectors, the gate's caps and
 * records, and events. A reference row: it shows what those guarantees cost when written by hand.
 * With `guarded`, the rest of what the runner keeps, still by hand: the input as canonical JSON with
 * a length cap, the proposal's shape checked (text, at most 16 calls, ids unique and present,
 * arguments objects), each call's arguments checked as JSON within a size cap, the submission
 * journal pruned in the committed head, the head's own copy of the record, and events (`started`,
 * one `executed` per call, `committed`). No conflict detector runs on either side (the bench's
 * runner has none configured).
 */
function handKept(guarded = false): () => Promise<number> {
  const { host, gate, proposal } = makeHandHost();
  const store = createMapStore();
  const events = new EventEmitter();
  const owner = `host_${nanoid()}`;
  const empty: Head = { turn: 0, state: host.state, record: null, lease: null, open: null, last: null };
  store.compareAndSet('g:head', null, guarded ? { ...empty, journal: [] } : empty);
  store.compareAndSet('g:log', null, { checkpoints: [] } satisfies Log);
  const maxCheckpoints = 5;
  let snapshots = 0;
  return async () => {
    const input = 'I attack';
    // Guarded: the input as canonical JSON, its length capped (a string's JSON is canonical).
    const content = guarded ? JSON.stringify(input) : input;
    if (content.length > 1_000_000) throw new Error('input_too_large');
    const read = store.get('g:head') as { version: number; value: Head & { journal?: Settled[] } };
    const now = Date.now();
    const held = read.value.lease;
    if (read.value.open !== null || (held !== null && held.owner !== owner && held.expiresAt > now)) {
      throw new Error('a turn is open or the lease is held elsewhere');
    }
    const turn = read.value.turn + 1;
    const turnId = `turn_${nanoid()}`;
    const opened: Head = {
      ...read.value,
      lease: { owner, expiresAt: now + 30_000 },
      open: { turnId, input: content, startedAt: now },
    };
    const version = store.compareAndSet('g:head', read.version, opened);
    if (version === undefined) throw new Error('conflict');
    if (guarded) events.emit('started', { turnId, turn, key: turnId });
    const generated = await Promise.resolve(proposal); // the model call
    if (guarded) checkProposal(generated);
    const answers = [];
    for (const call of generated.tool_calls) {
      // Guarded: the arguments are JSON within a size cap, and each outcome is recorded and reported.
      if (guarded && (JSON.stringify(call.args)?.length ?? Infinity) > 64 * 1024)
        throw new Error('too_large');
      const answer = await gate.process(call, turn);
      if (guarded) events.emit('executed', { id: call.id, tool: call.tool, turn, ok: answer.ok, at: now });
      answers.push(answer);
    }
    const record = { turn, text: generated.text, calls: answers.length };
    const state = structuredClone(host.state);
    const last = { turnId, input: content };
    const done: Head & { journal?: Settled[] } = guarded
      ? {
          turn,
          state,
          record: structuredClone(record), // the head's own copy: the caller keeps `record`
          lease: null,
          open: null,
          last,
          // The submission journal, its expired entries dropped (an unkeyed turn adds none).
          journal: (read.value.journal ?? []).filter((entry) => entry.at + 86_400_000 > now),
        }
      : { turn, state, record, lease: null, open: null, last };
    if (store.compareAndSet('g:head', version, done) === undefined) throw new Error('conflict');
    if (guarded) events.emit('committed', { turnId, turn, key: turnId, ok: true });
    const ref = `g:checkpoint:${turnId}:${snapshots++}`;
    store.compareAndSet(ref, null, { id: turnId, state });
    const log = store.get('g:log') as { version: number; value: Log };
    const checkpoints = [
      ...log.value.checkpoints,
      { id: turnId, at: Date.now(), label: `turn ${turn}`, ref },
    ];
    const dropped = checkpoints.length > maxCheckpoints ? checkpoints.shift() : undefined;
    if (store.compareAndSet('g:log', log.version, { checkpoints }) === undefined) {
      store.delete(ref);
      throw new Error('conflict');
    }
    if (dropped !== undefined) store.delete(dropped.ref);
    return turn;
  };
}

suite('turns: one turn with one tool call (memory store)', {
  cases: {
    'parley createTurnRunner': () => {
      const { host, gate, proposal } = makeHost();
      const runner = createTurnRunner({
        store: createMemoryStore(),
        keyPrefix: 'g:',
        gate,
        checkpoints: { maxCheckpoints: 5 },
        capture: () => host.state,
        restore: (state) => {
          host.state = state;
        },
        prepare: (turn: { input: string }) => ({
          request: turn.input,
          generate: () => proposal,
          readState: () => host.state,
          context: undefined,
          data: null,
        }),
        complete: (turn, outcome) => ({ turn: turn.turn, text: outcome.ok ? outcome.output.text : '' }),
      });
      const opened = runner.open();
      return async () => {
        await opened;
        const result = await runner.run('I attack');
        if (!result.ok) throw new Error(result.code);
        return result.turn;
      };
    },
    [HAND]: () => {
      const { host, gate, proposal } = makeHandHost();
      const store = createMapStore();
      store.compareAndSet('g:head', null, { turn: 0, state: host.state, record: null });
      const maxCheckpoints = 5;
      return async () => {
        const head = store.get('g:head') as { version: number; value: { turn: number } };
        const turn = head.value.turn + 1;
        const generated = await Promise.resolve(proposal); // the model call
        const answers = [];
        for (const call of generated.tool_calls) answers.push(await gate.process(call, turn));
        const record = { turn, text: generated.text, calls: answers.length };
        const state = structuredClone(host.state);
        const value = { turn, state, record };
        if (store.compareAndSet('g:head', head.version, value) === undefined) throw new Error('conflict');
        store.compareAndSet(`g:checkpoint:${turn}`, null, { turn, state });
        store.delete(`g:checkpoint:${turn - maxCheckpoints}`);
        return record.turn;
      };
    },
    [HAND_KEPT]: () => handKept(),
    [HAND_GUARDED]: () => handKept(true),
  },
  goals: [
    {
      case: 'parley createTurnRunner',
      vs: HAND,
      slowerByAtMost: 4,
    },
    // References (no goal): what the three guarantees the goal's baseline leaves out cost by hand,
    // and how far Parley is from a hand loop that keeps them.
    { case: HAND_KEPT, vs: HAND },
    { case: 'parley createTurnRunner', vs: HAND_KEPT },
    // References: the runner's remaining guarantees by hand too, against the goal's baseline, and Parley against that.
    { case: HAND_GUARDED, vs: HAND },
    { case: 'parley createTurnRunner', vs: HAND_GUARDED },
  ],
});
