// The strategist's side of sessions_spawn, with the document's error table (§4.8):
// - spawn is non-blocking: the run's announce is a correlated request (@parley/correlate), so the
//   strategist keeps scheduling other steps while it waits;
// - a run that does not announce within TASK_TIMEOUT_MS is spawned again with a timeout notice
//   (its late announce is refused by the correlator as `late`);
// - an announce whose report is incomplete gets the codec's `missing_fields` reply and the role is
//   spawned again with `request_clarification` naming those fields;
// - a model API error is retried once, then reported as `model_error` for the #errors channel.
// Every spawn waits for room in the topology (children per agent, concurrency) first.
import { isParleyError } from '@parley/core';
import type { Correlator } from '@parley/correlate';
import type { ArtifactName } from './artifacts.js';
import { sessionsSpawnProtocol, TASK_TIMEOUT_MS } from './protocols.js';
import { describeEnvelope, type Host, SESSIONS, STRATEGIST } from './wiring.js';

/** What the strategist asks of one step's agent. */
export interface SpawnTask {
  readonly step: string;
  readonly role: string;
  readonly output: ArtifactName;
  readonly intent: 'assign_task' | 'review_request';
  readonly payload: Readonly<Record<string, unknown>>;
}

export type SpawnOutcome =
  | { readonly ok: true; readonly report: unknown; readonly runId: string }
  | {
      readonly ok: false;
      readonly code: 'model_error' | 'respawn_limit' | 'refused';
      readonly message: string;
    };

export interface Spawner {
  run(task: SpawnTask): Promise<SpawnOutcome>;
  /** Run ids spawned per step, in order. */
  readonly runs: ReadonlyMap<string, readonly string[]>;
}

export interface SpawnerOptions {
  readonly timeoutMs?: number;
  /** Spawns of one task (timeouts and clarifications included) before giving up; 4 by default. */
  readonly maxSpawns?: number;
}

export function createSpawner(host: Host, correlator: Correlator, options: SpawnerOptions = {}): Spawner {
  const { topology, transcript } = host;
  const timeoutMs = options.timeoutMs ?? TASK_TIMEOUT_MS;
  const maxSpawns = options.maxSpawns ?? 4;
  const runs = new Map<string, string[]>();

  /** Resolves when a run finishes and frees a slot. */
  function aRunFinishes(): Promise<void> {
    return new Promise((resolve) => {
      const off = topology.on('finished', () => {
        off();
        resolve();
      });
    });
  }

  async function run(task: SpawnTask): Promise<SpawnOutcome> {
    const codec = host.codec(task.output);
    let intent: 'assign_task' | 'review_request' | 'request_clarification' = task.intent;
    let payload: Readonly<Record<string, unknown>> = task.payload;
    let modelErrors = 0;
    for (let spawn = 1; spawn <= maxSpawns; spawn++) {
      // Check and spawn with no await in between, so two steps never take the same slot.
      for (let room = topology.canSpawn(STRATEGIST); !room.ok; room = topology.canSpawn(STRATEGIST)) {
        if (room.code !== 'concurrency_exceeded' && room.code !== 'too_many_children') {
          return { ok: false, code: 'refused', message: room.message };
        }
        transcript.log(`  … [${task.step}] waits for a slot: ${room.code} (${topology.running()} running)`);
        await aRunFinishes();
      }
      const list = runs.get(task.step) ?? [];
      runs.set(task.step, list);
      const runId = `${task.step}-${list.length + 1}`;
      const spawned = topology.spawn({ parent: STRATEGIST, id: runId, role: task.role });
      if (!spawned.ok) return { ok: false, code: 'refused', message: spawned.message };
      list.push(runId);
      transcript.log(`${STRATEGIST} spawns ${task.role} as ${runId} (depth ${spawned.value.depth})`);
      // The payload was built for this intent; the codec validates it again on create.
      const envelope = codec.create(intent, {
        from: STRATEGIST,
        to: runId,
        ref_task: host.refTask,
        payload: payload as never,
        spawn_depth: 1,
      });
      host.post(envelope, task.output);

      let reply: Awaited<ReturnType<Correlator['request']>>;
      try {
        reply = await correlator.request(sessionsSpawnProtocol, {
          to: SESSIONS,
          payload: { step: task.step, run_id: runId, output: task.output, envelope: codec.encode(envelope) },
          timeoutMs,
        });
      } catch (error) {
        if (!isParleyError(error, 'timeout')) throw error;
        topology.finish(runId);
        const notice = `${runId} did not announce within ${timeoutMs / 60_000} min; announce ${task.output} within ${timeoutMs / 60_000} min.`;
        transcript.log(`  ⏱ ${notice.split(';')[0]} → spawn again with a timeout notice`);
        payload = withNotice(intent, payload, notice);
        continue;
      }

      if (!reply.approved) {
        topology.finish(runId);
        modelErrors++;
        transcript.log(`  ⚠ ${runId} failed: model API error (${reply.reason})`);
        if (modelErrors > 1)
          return { ok: false, code: 'model_error', message: `${task.role}: ${reply.reason}` };
        transcript.log(`  ↻ retrying ${task.role} once`);
        continue;
      }

      // The announce is untrusted text from the runtime: decode it like any peer's envelope.
      const text = (reply.response as { envelope: string }).envelope;
      const decoded = codec.decode(text);
      if (decoded.ok) {
        const route = topology.check(decoded.value);
        topology.finish(runId);
        if (!route.ok) return { ok: false, code: 'refused', message: route.message };
        const verdict =
          decoded.value.intent === 'review_verdict' ? ` → ${decoded.value.payload.verdict}` : '';
        transcript.log(`${runId} → ${STRATEGIST}  ${describeEnvelope(JSON.parse(text))}${verdict} ✓`);
        host.putArtifact(STRATEGIST, task.output, decoded.value.payload);
        return { ok: true, report: decoded.value.payload, runId };
      }
      if (decoded.code !== 'invalid_payload' || decoded.reply === undefined) {
        topology.finish(runId);
        transcript.log(`  ⛔ announce of ${runId} refused: ${decoded.code} — ${decoded.message}`);
        return { ok: false, code: 'refused', message: decoded.message };
      }
      transcript.log(
        `${runId} → ${STRATEGIST}  ${describeEnvelope(decoded.envelope)} ✗ invalid_payload: ${decoded.issues.length} issue(s)`,
      );
      host.post(decoded.reply, task.output); // the missing_fields reply, back to its author
      topology.finish(runId);
      intent = 'request_clarification';
      payload = {
        previous_report: { $ref: task.output },
        missing_fields: decoded.missingFields,
        question: `Fill in ${decoded.missingFields.join(', ')} and announce ${task.output} again, complete.`,
      };
    }
    transcript.log(`  ⛔ [${task.step}] gave up after ${maxSpawns} spawns`);
    return {
      ok: false,
      code: 'respawn_limit',
      message: `${task.role} did not deliver after ${maxSpawns} spawns`,
    };
  }

  return { run, runs };
}

/** Adds the timeout notice where the intent's payload has room for it. */
function withNotice(
  intent: 'assign_task' | 'review_request' | 'request_clarification',
  payload: Readonly<Record<string, unknown>>,
  notice: string,
): Readonly<Record<string, unknown>> {
  if (intent === 'assign_task') {
    return { ...payload, context: { ...(payload['context'] as object | undefined), notice } };
  }
  if (intent === 'review_request') {
    return { ...payload, criteria: [...((payload['criteria'] as string[] | undefined) ?? []), notice] };
  }
  return { ...payload, question: `${String(payload['question'])} (${notice})` };
}
