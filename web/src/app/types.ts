// The shapes of the API's answers the console reads (docs/transactions.md, docs/rules.md, docs/sync.md,
// docs/ledger.md). The calls themselves are typed by the OpenAPI paths (paths.ts).

export interface Transaction {
  id: string;
  short_id: string;
  account_id: string;
  account_name: string;
  user_id: string;
  user_name: string;
  amount: number;
  iso_currency_code: string;
  date: string;
  name: string;
  provider: string;
  provider_name: string;
  provider_merchant_name: string | null;
  pending: boolean;
  category_slug: string | null;
  category_display_name: string | null;
  category_source: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  counterparty_name: string | null;
  series_name: string | null;
}

export interface TransactionPage {
  transactions: Transaction[];
  next_cursor: string;
  has_more: boolean;
}

export interface Comment {
  id: string;
  short_id: string;
  body: string;
  author_type: string;
  author_name: string;
  created_at: string;
}

export interface Annotation {
  id: string;
  short_id: string;
  entity_type: string;
  action: string;
  actor_type: string;
  actor_name: string;
  details: Record<string, unknown>;
  created_at: string;
}

export interface CurrencyTotals {
  iso_currency_code: string;
  money_out: number;
  money_in: number;
  net: number;
  count: number;
}

export interface Summary {
  group_by: string;
  groups: { key: string; label: string; totals: CurrencyTotals[] }[];
  totals: CurrencyTotals[];
}

export interface Category {
  id: string;
  short_id: string;
  slug: string;
  display_name: string;
  parent_slug?: string | null;
  children?: Category[];
}

export interface Tag {
  id: string;
  short_id: string;
  slug: string;
  display_name: string;
  color?: string | null;
}

export interface Account {
  id: string;
  short_id: string;
  name: string;
  iso_currency_code?: string;
  user_name?: string;
}

export interface User {
  id: string;
  short_id: string;
  name: string;
  email: string | null;
}

export interface Connection {
  id: string;
  short_id: string;
  institution_name: string;
  provider: string;
  status: "active" | "error" | "pending_reauth" | "disconnected";
  last_synced_at: string | null;
  error_code: string | null;
  error_message: string | null;
  user_name: string;
}

export interface SyncLog {
  id: string;
  short_id: string;
  connection_id: string;
  provider: string;
  trigger: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  added: number;
  modified: number;
  removed: number;
  skipped_count: number;
  error_code: string | null;
  error_message: string | null;
}

export interface Provider {
  name: string;
  configured: boolean;
  needs_link_session: boolean;
  capabilities: string[];
}

export type ConditionNode =
  Record<string, never> | { and: ConditionNode[] } | { or: ConditionNode[] } | { not: ConditionNode } | ConditionLeaf;

export interface ConditionLeaf {
  field: string;
  op: string;
  value?: unknown;
  min?: unknown;
  max?: unknown;
  tolerance?: unknown;
}

export interface RuleAction {
  type: string;
  [key: string]: unknown;
}

export interface Rule {
  id: string;
  short_id: string;
  name: string;
  conditions: ConditionNode;
  actions: RuleAction[];
  trigger: string;
  /** Both empty when the rule sets no category. */
  category_slug: string;
  category_display_name: string;
  priority: number;
  enabled: boolean;
  hit_count: number;
  last_hit_at: string | null;
  created_by_type: string;
  created_by_name: string;
}

export interface RulePage {
  rules: Rule[];
  next_cursor: string;
  has_more: boolean;
  total: number;
}

export interface Preview {
  match_count: number;
  total_scanned: number;
  sample_matches: {
    transaction_id: string;
    date: string;
    amount: number;
    name: string;
    category_primary_raw: string;
    current_category_slug: string;
  }[];
}
