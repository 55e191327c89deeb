/**
 * The closed sets of values Coffer's API carries as strings, listed once for
 * the core (which refuses anything else) and the gateways (whose request
 * schemas offer exactly these). Sets the wire carries as proto enums are not
 * here: the generated code is their one list.
 */

/** How a search term matches: substring, whole words, typo-tolerant. */
export const SEARCH_MODES = ["contains", "words", "fuzzy"] as const;

/** When a rule runs. */
export const RULE_TRIGGERS = ["on_create", "on_change", "always"] as const;
/** Accepted on input as another name for on_change. */
export const RULE_TRIGGER_ALIASES = { on_update: "on_change" } as const;

/** The sorts of the rule list. */
export const RULE_SORTS = ["priority", "hit_count", "last_hit_at", "created_at", "name"] as const;
/** Who created a rule. */
export const RULE_CREATOR_TYPES = ["user", "agent", "system"] as const;

/** The sorts of the transaction list. */
export const TRANSACTION_SORT_FIELDS = ["date", "amount", "name"] as const;
/** How a transaction summary groups. */
export const SUMMARY_GROUPS = ["category", "month", "week", "day"] as const;

export const ACCOUNT_TYPES = ["depository", "credit", "loan", "investment", "other"] as const;
export const COUNTERPARTY_TYPES = ["merchant", "person", "organization", "other"] as const;
export const CONNECTION_STATUSES = ["active", "error", "pending_reauth", "disconnected"] as const;
/** A sync log's status; interrupted: its process died, the core shut down, or it lost its lock, between pages. */
export const SYNC_LOG_STATUSES = ["running", "success", "error", "interrupted"] as const;
export const SYNC_TRIGGERS = ["initial", "manual", "schedule", "webhook", "import", "reauth"] as const;
export const REPORT_PRIORITIES = ["info", "warning", "critical"] as const;

/** What an API key (or a console session, through its role) may do. */
export const API_KEY_SCOPES = ["read_only", "full_access"] as const;
/** Who acts with a key: a person's program, or an agent (device-code keys). */
export const ACTOR_TYPES = ["user", "agent"] as const;
/** The roles of a console login. */
export const LOGIN_ROLES = ["admin", "editor", "viewer"] as const;
