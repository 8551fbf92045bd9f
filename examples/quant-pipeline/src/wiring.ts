// The host's shared pieces: the spawn tree (@parley/envelope topology), the intent registries and
// codecs (one per report schema), the artifact store the `$ref` payloads point into, and `post`,
// which sends every host-authored envelope through the same codec and topology checks a peer's
// envelope gets. Nothing here knows the pipeline's steps.
import type { Clock, IdGenerator, StandardSchemaV1 } from '@parley/core';
import {
  type Codec,
  createCodec,
  createTopology,
  defineAgentIntents,
  defineIntents,
  type Envelope,
  isPayloadRef,
  type Topology,
} from '@parley/envelope';
import { ARTIFACT_SCHEMAS, type ArtifactName, ReviewReport } from './artifacts.js';
import type { Transcript } from './transcript.js';

export const CEO = 'ceo_coo';
export const STRATEGIST = 'quant_strategist';
export const SESSIONS = 'sessions';
export const CHAIRMAN = 'chairman';
export const CHANNELS = ['#approvals', '#errors'] as const;

/**
 * The document's eight intents with `deliver_report` carrying one artifact's schema and
 * `review_verdict` carrying Review_Report.json; escalations go to `ceo_coo` (`on_block`).
 */
export function pipelineIntents(report: StandardSchemaV1) {
  const base = defineAgentIntents({ report, roles: { escalation: CEO } });
  return defineIntents({
    ...base.specs,
    review_verdict: { ...base.specs.review_verdict, payload: ReviewReport },
  });
}

export type PipelineIntents = ReturnType<typeof pipelineIntents>;
export type PipelineCodec = Codec<PipelineIntents>;

export interface HostOptions {
  readonly clock: Clock;
  readonly generateId: IdGenerator;
  readonly transcript: Transcript;
  readonly refTask: string;
  /** Spawn-tree limits; the document's defaults, with depth 2 so the strategist can spawn. */
  readonly maxConcurrent?: number;
  readonly maxChildrenPerAgent?: number;
}

export interface Host {
  readonly clock: Clock;
  readonly topology: Topology;
  readonly transcript: Transcript;
  readonly refTask: string;
  /** Every notify that reached a channel, in order. */
  readonly notifications: readonly { readonly channel: string; readonly message: string }[];
  /** The codec whose `deliver_report` is `artifact`'s schema; the other intents are the same in all. */
  codec(artifact: ArtifactName): PipelineCodec;
  /** Artifacts by author: `{ "$ref": name }` in an envelope from X resolves to X's artifact `name`. */
  putArtifact(author: string, name: ArtifactName, content: unknown): void;
  getArtifact(author: string, name: string): unknown;
  /** Encodes, decodes (as the recipient would) and routes an envelope; logs it or its refusal. */
  post(envelope: Envelope, artifact?: ArtifactName): { readonly ok: boolean; readonly code?: string };
}

/** Builds the topology with the CEO, the two Discord channels and the sessions runtime. */
export function createHost(options: HostOptions): Host {
  const { clock, transcript, refTask } = options;
  const topology = createTopology({
    maxSpawnDepth: 2, // maxSpawnDepth ≥ 2 so the strategist (depth 1) can spawn researchers
    maxConcurrent: options.maxConcurrent ?? 8,
    maxChildrenPerAgent: options.maxChildrenPerAgent ?? 5,
    clock,
  });
  topology.register({ id: CEO, role: CEO });
  for (const channel of CHANNELS) topology.register({ id: channel, role: 'notifier', kind: 'channel' });
  topology.on('refused', (event) =>
    transcript.log(`  ⛔ topology refused ${event.action}: ${event.code} — ${event.message}`),
  );

  const artifacts = new Map<string, Map<string, unknown>>();
  const codecs = new Map<ArtifactName, PipelineCodec>();
  const notifications: { channel: string; message: string }[] = [];
  const codecOptions = {
    directory: topology,
    clock,
    generateId: options.generateId,
    resolveRef: (ref: string, envelope: Envelope): unknown => artifacts.get(envelope.from)?.get(ref),
  };

  const host: Host = {
    clock,
    topology,
    transcript,
    refTask,
    notifications,
    codec(artifact) {
      let codec = codecs.get(artifact);
      if (codec === undefined) {
        codec = createCodec(pipelineIntents(ARTIFACT_SCHEMAS[artifact]), codecOptions);
        codecs.set(artifact, codec);
      }
      return codec;
    },
    putArtifact(author, name, content) {
      const own = artifacts.get(author) ?? new Map<string, unknown>();
      artifacts.set(author, own);
      own.set(name, content);
    },
    getArtifact: (author, name) => artifacts.get(author)?.get(name),
    post(envelope, artifact = 'Pipeline_Summary.json') {
      const codec = host.codec(artifact);
      const decoded = codec.decode(codec.encode(envelope));
      if (!decoded.ok) {
        transcript.log(`  ⛔ ${envelope.from} → ${envelope.to} ${envelope.intent} refused: ${decoded.code}`);
        return { ok: false, code: decoded.code };
      }
      const route = topology.check(decoded.value);
      if (!route.ok) return { ok: false, code: route.code };
      transcript.log(`${envelope.from} → ${envelope.to}  ${describeEnvelope(envelope)}`);
      if (decoded.value.intent === 'notify') {
        notifications.push({ channel: decoded.value.to, message: decoded.value.payload.message });
      }
      return { ok: true };
    },
  };
  return host;
}

/** One line about an envelope for the transcript. */
export function describeEnvelope(envelope: Envelope): string {
  const p = envelope.payload as Record<string, unknown>;
  const head = `${envelope.intent}${envelope.expect_response ? ' (send)' : ''}`;
  if (isPayloadRef(envelope.payload)) return `${head}: ${envelope.payload.$ref}`;
  switch (envelope.intent) {
    case 'assign_task':
      return `${head}: ${String(p['task'])}${p['output'] === undefined ? '' : ` → ${String(p['output'])}`}`;
    case 'request_clarification':
      return `${head}: missing ${(p['missing_fields'] as string[]).join(', ')} — "${String(p['question'])}"`;
    case 'missing_fields':
      return `${head}: ${(p['missing_fields'] as string[]).join(', ')}`;
    case 'review_request':
      return `${head}: ${String(p['artifact'])}`;
    case 'review_verdict':
      return `${head}: ${String(p['verdict'])} (score ${String(p['score'])}, ${(p['issues'] as unknown[]).length} issue(s))`;
    case 'escalate':
      return `${head}: ${String(p['reason'])}`;
    case 'notify':
      return `${head}: ${String(p['message'])}`;
    default:
      return typeof p['summary'] === 'string' ? `${head}: ${p['summary']}` : head;
  }
}
