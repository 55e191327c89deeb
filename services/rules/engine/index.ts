// The rules engine: pure modules (no ORM, no HTTP, no clock). See docs/rules.md.
export {
  ACTION_TYPES,
  FLAG_TAG,
  parseActions,
  type ActionInput,
  type MetadataScalar,
  type RuleAction,
} from "./actions.js";
export { type TransactionContext } from "./context.js";
export { RuleValidationError } from "./errors.js";
export { conditionsMatch, truthOf } from "./evaluate.js";
export { sameJson } from "./json.js";
export { FIELDS, FIELD_NAMES, fieldNamed, METADATA_PREFIX } from "./fields.js";
export {
  TRIGGERS,
  categoryLocked,
  firesOn,
  pipelineOrder,
  runPipeline,
  type CategorySource,
  type CompiledRule,
  type PipelineResult,
  type RuleRef,
  type SyncEvent,
  type Trigger,
} from "./pipeline.js";
export {
  MAX_DEPTH,
  MAX_NODES,
  TRUE,
  FALSE,
  UNKNOWN,
  compileConditions,
  leavesOf,
  type CompiledConditions,
  type ConditionNode,
  type LeafNode,
  type Truth,
} from "./tree.js";
