// Display only: amounts arrive as JSON numbers with at most two decimals and are never added up here.
const moneyFormats = new Map<string, Intl.NumberFormat>();

/** An amount in its own currency ("$4.75", "-€12.00"); a dash where the API gives none (null). */
export function money(amount: number | null, currency: string): string {
  if (amount === null) return "—";
  let f = moneyFormats.get(currency);
  if (!f) {
    try {
      f = new Intl.NumberFormat(undefined, { style: "currency", currency });
    } catch {
      // An unknown currency code: plain digits with the code.
      f = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    moneyFormats.set(currency, f);
  }
  return f.format(amount);
}

/** An axis label: the amount rounded and shortened ("$7.5K"); display only. */
export function moneyCompact(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency, notation: "compact" }).format(amount);
  } catch {
    return new Intl.NumberFormat(undefined, { notation: "compact" }).format(amount);
  }
}

/** A timestamp in the person's locale, or a dash. */
export function when(ts: string | null | undefined): string {
  if (!ts) return "—";
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? ts : d.toLocaleString();
}

/** YYYY-MM-DD of a local date. */
export function isoDay(d: Date): string {
  const m = String(d.getMonth() + 1).padStart(2, "0");
  const day = String(d.getDate()).padStart(2, "0");
  return `${d.getFullYear()}-${m}-${day}`;
}

/** The first day of this month and of the next: the range of "this month". */
export function thisMonth(now = new Date()): { start: string; end: string } {
  return {
    start: isoDay(new Date(now.getFullYear(), now.getMonth(), 1)),
    end: isoDay(new Date(now.getFullYear(), now.getMonth() + 1, 1)),
  };
}
