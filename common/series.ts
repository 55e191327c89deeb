/**
 * The values a recurring series' enumerated fields take, defined once: the
 * core checks them (and the database's check constraints say the same), the
 * gateways describe them in their request schemas.
 */
export const SERIES_TYPES = ["subscription", "bill", "loan", "income", "other"] as const;
export const SERIES_CADENCES = ["weekly", "biweekly", "monthly", "quarterly", "yearly", "irregular"] as const;
export const SERIES_STATUSES = ["active", "paused", "ended"] as const;
