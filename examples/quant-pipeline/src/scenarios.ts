// The scripted runs: what each step's agent does on its 1st, 2nd, … attempt (the last one
// repeats), and the chairman's answer. The strategist's own converge is scripted the same way.
import {
  analysisNoCosts,
  analysisReport,
  backtestPass,
  backtestRevise,
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

/** What a scripted agent does on one attempt. */
export type AgentBehaviour =
  /** Announces `report` (complete or not) after working `afterMs`. */
  | { readonly kind: 'announce'; readonly afterMs: number; readonly report: unknown }
  /** Works past the step's timeout and announces `report` at `afterMs` anyway, too late. */
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
  /** Step id → behaviour of its 1st, 2nd, … attempt (the last one repeats). */
  readonly agents: Readonly<Record<string, readonly AgentBehaviour[]>>;
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
  converge: theses.map((thesis) => announce(0, thesis)), // the strategist's own model call
  review: [announce(3 * MIN, reviewPass)],
  data_analysis: [announce(9 * MIN, analysisReport)],
  backtest_review: [announce(3 * MIN, backtestPass)],
} as const;

const chairman: ChairmanScript = {
  afterMs: 12 * MIN,
  approve: true,
  reason: 'Go, at half size on the first fill.',
};

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'happy',
    title: 'one revise round, then pass, a backtest that passes review, and the chairman approves',
    agents: { ...research, review: [announce(3 * MIN, reviewReviseStop), announce(3 * MIN, reviewPass)] },
    chairman,
  },
  {
    name: 'missing-fields',
    title: 'the bullish researcher leaves fields out; invalid_output, re-spawn with the missing fields',
    agents: { ...research, bull: [announce(6 * MIN, bullBriefIncomplete), announce(4 * MIN, bullBrief)] },
    chairman,
  },
  {
    name: 'blocked',
    title: 'the reviewer blocks the thesis; the strategist escalates to the CEO',
    agents: { ...research, review: [announce(3 * MIN, reviewBlock)] },
    chairman,
  },
  {
    name: 'revise-limit',
    title: 'three revise rounds (one sends the bullish researcher back) and a fourth revise escalates',
    agents: {
      ...research,
      bull: [announce(6 * MIN, bullBrief), announce(5 * MIN, { ...bullBrief, confidence: 0.6 })],
      review: [reviewReviseStop, reviewReviseBull, reviewReviseStop].map((r) => announce(3 * MIN, r)),
    },
    chairman,
  },
  {
    name: 'backtest-revise',
    title: 'the backtest review sends the analyst back for costs; the second backtest passes',
    agents: {
      ...research,
      data_analysis: [announce(9 * MIN, analysisNoCosts), announce(7 * MIN, analysisReport)],
      backtest_review: [announce(3 * MIN, backtestRevise), announce(3 * MIN, backtestPass)],
    },
    chairman,
  },
  {
    name: 'errors',
    title: 'intel times out and is re-spawned; the data analyst hits model errors twice → #errors',
    agents: {
      ...research,
      intel: [{ kind: 'slow', afterMs: 20 * MIN, report: intelBrief }, announce(4 * MIN, intelBrief)],
      data_analysis: [{ kind: 'model_error', afterMs: 2 * MIN, message: '529 overloaded' }],
    },
    chairman,
  },
];

/** The scenario with this name. */
export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((scenario) => scenario.name === name);
}
