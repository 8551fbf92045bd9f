// The scripted runs: what each agent does on its nth spawn, the strategist's successive theses,
// and the chairman's answer. Agents are looked up by step id.
import type { StrategyThesis } from './artifacts.js';
import {
  analysisReport,
  bearBrief,
  bullBrief,
  bullBriefIncomplete,
  intelBrief,
  reviewBlock,
  reviewPass,
  reviewReviseBull,
  reviewReviseStop,
  structureReport,
  theses,
} from './fixtures.js';

/** What a scripted agent does on one spawn. */
export type AgentBehaviour =
  /** Announces `report` (complete or not) after working `afterMs`. */
  | { readonly kind: 'announce'; readonly afterMs: number; readonly report: unknown }
  /** Works past the step's timeout; announces `report` at `afterMs`, too late. */
  | { readonly kind: 'slow'; readonly afterMs: number; readonly report: unknown }
  /** The run fails with a model API error after `afterMs`. */
  | { readonly kind: 'model_error'; readonly afterMs: number; readonly message: string };

/** The chairman's scripted answer in #approvals. */
export interface ChairmanScript {
  readonly afterMs: number;
  readonly approve: boolean;
  readonly reason?: string;
}

export interface Scenario {
  readonly name: string;
  readonly title: string;
  /** Step id → behaviour of its 1st, 2nd, … spawn (the last one repeats). */
  readonly agents: Readonly<Record<string, readonly AgentBehaviour[]>>;
  /** The strategist's own converge outputs, version by version (the last one repeats). */
  readonly theses: readonly StrategyThesis[];
  readonly chairman: ChairmanScript;
}

const MIN = 60_000;
const announce = (afterMs: number, report: unknown): AgentBehaviour => ({
  kind: 'announce',
  afterMs,
  report,
});

const research = {
  intel: [announce(4 * MIN, intelBrief)],
  structure: [announce(5 * MIN, structureReport)],
  bull: [announce(6 * MIN, bullBrief)],
  bear: [announce(8 * MIN, bearBrief)],
  data_analysis: [announce(9 * MIN, analysisReport)],
} as const;

const approve: ChairmanScript = {
  afterMs: 12 * MIN,
  approve: true,
  reason: 'Go, at half size on the first fill.',
};

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'happy',
    title: 'one revise round, then pass, analysis and the chairman approves',
    agents: { ...research, review: [announce(3 * MIN, reviewReviseStop), announce(3 * MIN, reviewPass)] },
    theses,
    chairman: approve,
  },
  {
    name: 'missing-fields',
    title: 'the bullish researcher leaves fields out; missing_fields, re-spawn, complete',
    agents: {
      ...research,
      bull: [announce(6 * MIN, bullBriefIncomplete), announce(4 * MIN, bullBrief)],
      review: [announce(3 * MIN, reviewPass)],
    },
    theses,
    chairman: approve,
  },
  {
    name: 'blocked',
    title: 'the reviewer blocks the thesis; the strategist escalates to the CEO',
    agents: { ...research, review: [announce(3 * MIN, reviewBlock)] },
    theses,
    chairman: approve,
  },
  {
    name: 'revise-limit',
    title: 'three revise rounds (one sends the bullish researcher back) and a fourth revise escalates',
    agents: {
      ...research,
      bull: [announce(6 * MIN, bullBrief), announce(5 * MIN, { ...bullBrief, confidence: 0.6 })],
      review: [
        announce(3 * MIN, reviewReviseStop),
        announce(3 * MIN, reviewReviseBull),
        announce(3 * MIN, reviewReviseStop),
        announce(3 * MIN, reviewReviseStop),
      ],
    },
    theses,
    chairman: approve,
  },
  {
    name: 'errors',
    title: 'intel times out and is re-spawned; the data analyst hits model errors twice → #errors',
    agents: {
      ...research,
      intel: [{ kind: 'slow', afterMs: 20 * MIN, report: intelBrief }, announce(4 * MIN, intelBrief)],
      review: [announce(3 * MIN, reviewPass)],
      data_analysis: [
        { kind: 'model_error', afterMs: 2 * MIN, message: '529 overloaded' },
        { kind: 'model_error', afterMs: 2 * MIN, message: '529 overloaded' },
      ],
    },
    theses,
    chairman: approve,
  },
];

/** The scenario with this name. */
export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((scenario) => scenario.name === name);
}
