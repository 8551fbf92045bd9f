// The product-level records of the spec, in its field names: Campaign (§2.1), TurnLog (§2.2),
// SummaryState (§2.3), the reserved route decision (§5.2), milestone policies (§8.2) and the rollback
// fields (§9). Times are epoch ms from the injected clock.
import type { AppliedAction, ConflictReport } from '@parley/conflict';
import type { JsonValue } from '@parley/core';
import type { ToolCall } from '@parley/conflict';

/** `dialog.manual_type` (spec §4.3, §5.1). */
export const DIALOG_TYPES = ['scene', 'action', 'rules', 'free_chat'] as const;
export type DialogType = (typeof DIALOG_TYPES)[number];

/**
 * The reserved output of a future automatic router (spec §5.2). V1 never writes it: the player's
 * manual choice decides, and `campaign.dialog.future_route_decision` stays `null`.
 */
export interface RouteDecision {
  readonly dialog_type: DialogType;
  readonly variant: string;
  readonly context_profile: string;
  readonly guards: readonly string[];
}

/** The three advance policies of spec §8.2; the campaign picks one. */
export type AdvancePolicy =
  | { readonly policy: 'by_turn_count'; readonly every_n_turns: number }
  | { readonly policy: 'by_token_estimate'; readonly token_threshold: number }
  | { readonly policy: 'by_summary_version'; readonly versions_per_advance: number };

export interface Milestone {
  readonly value: number;
  readonly last_advanced_at_turn: number;
  readonly advance_policy: AdvancePolicy;
  /** What the policies count since the last advance. */
  readonly progress: {
    readonly turns: number;
    readonly token_estimate: number;
    readonly summary_versions: number;
  };
}

/** spec §9 `checkpoints[]`. */
export interface Checkpoint {
  readonly turn_id: string;
  readonly timestamp: number;
  readonly label: string;
  /** The key of the JSON snapshot in the session's `Store`. */
  readonly state_snapshot_ref: string;
}

/** spec §9 `rollback_pending`. */
export interface RollbackPending {
  readonly is_pending: boolean;
  readonly from_turn_id: string | null;
  readonly to_turn_id: string | null;
  /** True only until the player sends a new command (then the rollback is a new branch). */
  readonly can_undo: boolean;
}

/** spec §2.1 Campaign. */
export interface Campaign {
  readonly campaign_id: string;
  readonly title: string;
  readonly created_at: number;
  readonly updated_at: number;
  readonly selected: {
    readonly world_id: string;
    readonly map_id: string;
    readonly party_character_ids: readonly string[];
    readonly active_actor_id: string;
  };
  /**
   * Generated once at creation from the world background, the map and the characters'
   * backgrounds (spec §8.1, src/goal.ts); no tool, command or model output can change its text,
   * only `is_hidden`. `key_terms` (not in the spec) are the words that would give it away.
   */
  readonly goal: {
    readonly ultimate_goal_text: string;
    readonly is_hidden: boolean;
    readonly key_terms: readonly string[];
  };
  readonly milestone: Milestone;
  /** The values of the settings snapshot read at the start of the latest turn. */
  readonly settings_snapshot: Readonly<Record<string, JsonValue>>;
  readonly state_refs: {
    readonly world_state_id: string;
    readonly map_state_id: string;
    readonly summary_state_id: string;
  };
  readonly dialog: {
    readonly dialog_type_selected: DialogType;
    readonly future_route_decision: RouteDecision | null;
  };
  readonly checkpoints: readonly Checkpoint[];
  readonly rollback_pending: RollbackPending;
}

/** spec §2.2 TurnLog. */
export interface TurnLog {
  readonly turn_id: string;
  /** The turn number in the current branch (turn ids stay unique across branches). */
  readonly turn: number;
  readonly actor_id: string;
  readonly user_input: string;
  /** What the players saw: the accepted narrative, or the conflict report's notice. */
  readonly assistant_output_text: string;
  readonly assistant_structured: {
    readonly tool_calls: readonly ToolCall[];
    readonly dialog_type: DialogType;
    readonly settings_version: { readonly global: number; readonly campaign: number };
    readonly attempts: number;
    readonly retries: number;
    readonly milestone_value: number;
    readonly conflict_report?: ConflictReport | undefined;
  };
  readonly applied_actions: readonly AppliedAction[];
  readonly timestamp: number;
}

/** spec §2.3 SummaryState. */
export interface SummaryState {
  readonly summary_text: string;
  readonly facts_json: Readonly<Record<string, JsonValue>>;
  readonly pins: readonly string[];
}

export const NO_ROLLBACK: RollbackPending = Object.freeze({
  is_pending: false,
  from_turn_id: null,
  to_turn_id: null,
  can_undo: false,
});
