import type { Em } from "../services/db/orm.js";
import { query } from "../services/db/sql.js";
import { newShortId } from "../services/ids/short-id.js";
import type { Actor } from "../services/ledger/actor.js";
import { recordAnnotation } from "../services/ledger/annotations.js";
import { insertTransactions, type NewTransaction } from "../services/ledger/transactions/insert.js";
import { createUser } from "../services/users/users.js";

/**
 * `coffer demo`: a realistic household for newcomers (two people, four
 * accounts, ~2,000 transactions over the last 12 months in USD and EUR).
 *
 * Safe to run again: every row has a fixed natural key (user email, account
 * provider id, tag slug, counterparty name, provider transaction id) and is
 * only inserted when missing. Each day's transactions come from a PRNG seeded
 * by that date alone, so a run on a later day adds the new days and never
 * duplicates the old ones. Amounts are built as integer cents.
 */

const PROVIDER = "manual";
const ACTOR: Actor = { type: "system", id: null, keyId: null, name: "coffer demo" };
const DAY_MS = 86_400_000;
const WINDOW_DAYS = 365;

// ---------- deterministic randomness ----------

/** FNV-1a: a 32-bit seed from a string. */
function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** mulberry32: a small, well-distributed PRNG; the same seed gives the same sequence everywhere. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];
/** Whole cents in [min, max]. */
const cents = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
/** How many events happen today at an average rate of `rate` per day (Poisson, Knuth). */
function occurrences(rng: Rng, rate: number): number {
  const limit = Math.exp(-rate);
  let k = 0;
  for (let p = rng(); p > limit; p *= rng()) k++;
  return k;
}

/** Integer cents → exact decimal text ("-4230.77"); no floating point involved. */
export function formatCents(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not a whole number of cents: ${value}`);
  const abs = Math.abs(value);
  return `${value < 0 ? "-" : ""}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

// ---------- calendar ----------

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

// ---------- the household ----------

type AccountKey = "checking" | "card" | "savings" | "giro";

const USERS = [
  { key: "ann", name: "Ann Carter", email: "ann@demo.coffer.local" },
  { key: "ben", name: "Ben Carter", email: "ben@demo.coffer.local" },
] as const;

const ACCOUNTS: {
  key: AccountKey;
  owner: "ann" | "ben";
  name: string;
  officialName: string;
  type: string;
  subtype: string;
  mask: string;
  currency: string;
  /** Balance before the window, in cents (depository); the card's limit (credit). */
  openingCents: number;
}[] = [
  {
    key: "checking",
    owner: "ann",
    name: "Joint Checking",
    officialName: "Everyday Joint Checking",
    type: "depository",
    subtype: "checking",
    mask: "4821",
    currency: "USD",
    openingCents: 825_000,
  },
  {
    key: "card",
    owner: "ann",
    name: "Sapphire Card",
    officialName: "Sapphire Preferred Visa",
    type: "credit",
    subtype: "credit card",
    mask: "9034",
    currency: "USD",
    openingCents: 1_500_000,
  },
  {
    key: "savings",
    owner: "ben",
    name: "High-Yield Savings",
    officialName: "Online Savings Account",
    type: "depository",
    subtype: "savings",
    mask: "5512",
    currency: "USD",
    openingCents: 2_400_000,
  },
  {
    key: "giro",
    owner: "ben",
    name: "Girokonto",
    officialName: "Berliner Girokonto Plus",
    type: "depository",
    subtype: "checking",
    mask: "7730",
    currency: "EUR",
    openingCents: 340_000,
  },
];

const TAGS = [
  { slug: "vacation", displayName: "Vacation", color: "#2ca02c" },
  { slug: "reimbursable", displayName: "Reimbursable", color: "#1f77b4" },
  { slug: "tax_deductible", displayName: "Tax deductible", color: "#9467bd" },
] as const;
type TagSlug = (typeof TAGS)[number]["slug"];

const COUNTERPARTIES = [
  { key: "landlord", name: "Maple Street Properties", type: "organization", notes: "Landlord; rent due on the 1st" },
  { key: "employer_ann", name: "Northwind Labs", type: "organization", notes: "Ann's employer" },
  {
    key: "employer_ben",
    name: "Rheinwerk GmbH",
    type: "organization",
    notes: "Ben's employer (Berlin); he works remotely",
  },
  { key: "parents", name: "Helga Becker", type: "person", notes: "Ben's mother; monthly support" },
] as const;
type CounterpartyKey = (typeof COUNTERPARTIES)[number]["key"];

/** One kind of purchase: how the bank names it, how the provider classifies it, and where Coffer files it. */
interface Merchant {
  name: string;
  merchant: string | null;
  primary: string | null;
  detailed: string | null;
  category: string | null;
  min: number;
  max: number;
}

const m = (
  name: string,
  merchant: string | null,
  detailed: string | null,
  category: string | null,
  min: number,
  max: number,
): Merchant => ({
  name,
  merchant,
  primary: detailed ? (PRIMARY.find((p) => detailed.startsWith(p)) ?? null) : null,
  detailed,
  category,
  min,
  max,
});

const PRIMARY = [
  "FOOD_AND_DRINK",
  "TRANSPORTATION",
  "GENERAL_MERCHANDISE",
  "MEDICAL",
  "ENTERTAINMENT",
  "PERSONAL_CARE",
  "RENT_AND_UTILITIES",
  "INCOME",
  "TRANSFER_IN",
  "TRANSFER_OUT",
  "LOAN_PAYMENTS",
  "GENERAL_SERVICES",
  "GOVERNMENT_AND_NON_PROFIT",
  "TRAVEL",
  "BANK_FEES",
  "HOME_IMPROVEMENT",
];

/**
 * Everyday spending at home in San Francisco: merchants and an average number
 * of purchases per day. Only `online` kinds go on while the household travels.
 */
const DAILY: { account: AccountKey; rate: number; merchants: Merchant[]; online?: boolean }[] = [
  {
    account: "card",
    rate: 1.3,
    merchants: [
      m("SQ *BLUE BOTTLE COFFEE", "Blue Bottle Coffee", "FOOD_AND_DRINK_COFFEE", "food_and_drink_coffee", 450, 780),
      m("STARBUCKS STORE 05512", "Starbucks", "FOOD_AND_DRINK_COFFEE", "food_and_drink_coffee", 395, 725),
      m("PHILZ COFFEE MISSION", "Philz Coffee", "FOOD_AND_DRINK_COFFEE", "food_and_drink_coffee", 500, 890),
    ],
  },
  {
    account: "card",
    rate: 0.75,
    merchants: [
      m(
        "WHOLEFDS MKT 10234",
        "Whole Foods Market",
        "FOOD_AND_DRINK_GROCERIES",
        "food_and_drink_groceries",
        1800,
        16500,
      ),
      m("TRADER JOE S #123", "Trader Joe's", "FOOD_AND_DRINK_GROCERIES", "food_and_drink_groceries", 2200, 11800),
      m("SAFEWAY #1711", "Safeway", "FOOD_AND_DRINK_GROCERIES", "food_and_drink_groceries", 1200, 9800),
    ],
  },
  {
    account: "card",
    rate: 0.7,
    merchants: [
      m("CHIPOTLE 2291", "Chipotle", "FOOD_AND_DRINK_FAST_FOOD", "food_and_drink_restaurants", 1150, 2890),
      m("SWEETGREEN HAYES", "Sweetgreen", "FOOD_AND_DRINK_RESTAURANT", "food_and_drink_restaurants", 1450, 3200),
      m("TST* NOPALITO", "Nopalito", "FOOD_AND_DRINK_RESTAURANT", "food_and_drink_restaurants", 3800, 11200),
      m("TST* ZUNI CAFE", "Zuni Cafe", "FOOD_AND_DRINK_RESTAURANT", "food_and_drink_restaurants", 6500, 19500),
    ],
  },
  {
    account: "card",
    rate: 0.25,
    merchants: [
      m("DOORDASH*THAI HOUSE", "DoorDash", "FOOD_AND_DRINK_RESTAURANT", "food_and_drink_delivery", 2200, 6400),
      m("UBER   *EATS", "Uber Eats", "FOOD_AND_DRINK_RESTAURANT", "food_and_drink_delivery", 1900, 5800),
    ],
  },
  {
    account: "card",
    rate: 0.7,
    merchants: [
      m("UBER   *TRIP", "Uber", "TRANSPORTATION_TAXIS_AND_RIDE_SHARES", "transportation_taxi_and_rideshare", 890, 4600),
      m(
        "LYFT   *RIDE SUN 8PM",
        "Lyft",
        "TRANSPORTATION_TAXIS_AND_RIDE_SHARES",
        "transportation_taxi_and_rideshare",
        950,
        3900,
      ),
      m("CLIPPER SERVICE", "Clipper", "TRANSPORTATION_PUBLIC_TRANSIT", "transportation_public_transit", 2000, 5000),
      m("SHELL OIL 57442", "Shell", "TRANSPORTATION_GAS", "transportation_fuel", 3500, 7800),
      m("SFMTA PARKING METER", "SFMTA", "TRANSPORTATION_PARKING", "transportation_parking", 300, 1200),
    ],
  },
  {
    account: "card",
    rate: 0.3,
    merchants: [
      m("TARGET 00012345", "Target", "GENERAL_MERCHANDISE_SUPERSTORES", "general_merchandise_other", 1500, 12000),
      m(
        "UNIQLO UNION SQUARE",
        "Uniqlo",
        "GENERAL_MERCHANDISE_CLOTHING_AND_ACCESSORIES",
        "general_merchandise_clothing",
        2990,
        14900,
      ),
      m(
        "BEST BUY 00001234",
        "Best Buy",
        "GENERAL_MERCHANDISE_ELECTRONICS",
        "general_merchandise_electronics",
        1999,
        39999,
      ),
      m("ACE HARDWARE #4410", "Ace Hardware", "HOME_IMPROVEMENT_HARDWARE", "home_hardware", 699, 8900),
    ],
  },
  {
    account: "card",
    rate: 0.2,
    online: true,
    merchants: [
      m(
        "AMAZON MKTPL*2K4XY91",
        "Amazon",
        "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES",
        "general_merchandise_online",
        899,
        8999,
      ),
    ],
  },
  {
    account: "card",
    rate: 0.1,
    merchants: [
      m("CVS/PHARMACY #09812", "CVS Pharmacy", "MEDICAL_PHARMACIES_AND_SUPPLEMENTS", "medical_pharmacy", 650, 6400),
      m("WALGREENS #3321", "Walgreens", "MEDICAL_PHARMACIES_AND_SUPPLEMENTS", "medical_pharmacy", 520, 4800),
    ],
  },
  {
    account: "card",
    rate: 0.15,
    merchants: [
      m("THE ALEMBIC BAR", "The Alembic", "FOOD_AND_DRINK_BEER_WINE_AND_LIQUOR", "food_and_drink_alcohol", 1800, 7200),
      m("BI-RITE WINE", "Bi-Rite Market", "FOOD_AND_DRINK_BEER_WINE_AND_LIQUOR", "food_and_drink_alcohol", 1600, 5400),
    ],
  },
  {
    account: "card",
    rate: 0.06,
    merchants: [
      m(
        "TICKETMASTER",
        "Ticketmaster",
        "ENTERTAINMENT_SPORTING_EVENTS_AMUSEMENT_PARKS_AND_MUSEUMS",
        "entertainment_events",
        4500,
        24000,
      ),
      m("AMC METREON 16", "AMC Theatres", "ENTERTAINMENT_TV_AND_MOVIES", "entertainment_events", 1650, 4200),
    ],
  },
  {
    account: "card",
    rate: 0.05,
    merchants: [
      m(
        "GREAT CLIPS #8812",
        "Great Clips",
        "PERSONAL_CARE_HAIR_AND_BEAUTY",
        "personal_care_hair_and_beauty",
        2200,
        6500,
      ),
    ],
  },
  // Person-to-person payments: no provider category, so they arrive uncategorized.
  {
    account: "checking",
    rate: 0.1,
    online: true,
    merchants: [m("VENMO PAYMENT 1029384", "Venmo", null, null, 1000, 8000)],
  },
  // Ben orders from German shops for family there, paid in euros.
  {
    account: "giro",
    rate: 0.06,
    online: true,
    merchants: [
      m(
        "Amazon.de Marketplace",
        "Amazon",
        "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES",
        "general_merchandise_online",
        999,
        6999,
      ),
    ],
  },
];

/** Bills and pay on a fixed day of the month. */
const MONTHLY: {
  day: number;
  account: AccountKey;
  merchant: Merchant;
  counterparty?: CounterpartyKey;
  months?: number[];
  tag?: TagSlug;
  comment?: string;
}[] = [
  {
    day: 1,
    account: "checking",
    merchant: m(
      "MAPLE STREET PROPERTIES ACH",
      "Maple Street Properties",
      "RENT_AND_UTILITIES_RENT",
      "rent_and_utilities_rent",
      315_000,
      315_000,
    ),
    counterparty: "landlord",
  },
  {
    day: 2,
    account: "card",
    merchant: m(
      "EQUINOX #144",
      "Equinox",
      "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS",
      "personal_care_gym",
      23_500,
      23_500,
    ),
  },
  {
    day: 3,
    account: "checking",
    merchant: m(
      "PGANDE WEB ONLINE",
      "PG&E",
      "RENT_AND_UTILITIES_GAS_AND_ELECTRICITY",
      "rent_and_utilities_electricity",
      6_200,
      17_900,
    ),
  },
  {
    day: 4,
    account: "giro",
    merchant: m(
      "ZEIT Verlag Digitalabo",
      "DIE ZEIT",
      "ENTERTAINMENT_OTHER_ENTERTAINMENT",
      "entertainment_streaming",
      1_999,
      1_999,
    ),
  },
  {
    day: 5,
    account: "card",
    merchant: m("NETFLIX.COM", "Netflix", "ENTERTAINMENT_TV_AND_MOVIES", "entertainment_streaming", 1_549, 1_549),
  },
  {
    day: 8,
    account: "checking",
    merchant: m(
      "COMCAST XFINITY",
      "Xfinity",
      "RENT_AND_UTILITIES_INTERNET_AND_CABLE",
      "rent_and_utilities_internet_and_phone",
      7_999,
      7_999,
    ),
  },
  {
    day: 9,
    account: "card",
    merchant: m("SPOTIFY USA", "Spotify", "ENTERTAINMENT_MUSIC_AND_AUDIO", "entertainment_streaming", 1_199, 1_199),
  },
  {
    day: 10,
    account: "checking",
    merchant: m(
      "AMERICAN RED CROSS",
      "American Red Cross",
      "GOVERNMENT_AND_NON_PROFIT_DONATIONS",
      "government_and_charity_donations",
      5_000,
      5_000,
    ),
    months: [2, 5, 8, 11, 12],
    tag: "tax_deductible",
    comment: "Receipt saved under Taxes / Donations.",
  },
  {
    day: 12,
    account: "card",
    merchant: m(
      "VERIZON WIRELESS",
      "Verizon",
      "RENT_AND_UTILITIES_TELEPHONE",
      "rent_and_utilities_internet_and_phone",
      9_540,
      9_540,
    ),
  },
  {
    day: 14,
    account: "card",
    merchant: m(
      "APPLE.COM/BILL",
      "Apple",
      "GENERAL_SERVICES_OTHER_GENERAL_SERVICES",
      "entertainment_streaming",
      299,
      299,
    ),
  },
  {
    day: 15,
    account: "checking",
    merchant: m(
      "SFPUC WATER PAYMENT",
      "SFPUC",
      "RENT_AND_UTILITIES_WATER",
      "rent_and_utilities_gas_and_water",
      4_500,
      9_200,
    ),
  },
  {
    day: 15,
    account: "giro",
    merchant: m("Dauerauftrag Helga Becker", null, "TRANSFER_OUT_ACCOUNT_TRANSFER", "transfers_out", 30_000, 30_000),
    counterparty: "parents",
  },
  {
    day: 18,
    account: "checking",
    merchant: m("GEICO *AUTO", "GEICO", "GENERAL_SERVICES_INSURANCE", "services_insurance", 41_250, 41_250),
    months: [1, 4, 7, 10],
  },
  {
    day: 20,
    account: "card",
    merchant: m(
      "NYTIMES DIGITAL",
      "The New York Times",
      "ENTERTAINMENT_OTHER_ENTERTAINMENT",
      "entertainment_streaming",
      1_700,
      1_700,
    ),
  },
  {
    day: 21,
    account: "checking",
    merchant: m("DR. LEE DENTAL GROUP", "Lee Dental Group", "MEDICAL_DENTAL_CARE", "medical_dental", 9_500, 28_000),
    months: [3, 9],
    tag: "tax_deductible",
  },
  {
    day: 25,
    account: "giro",
    merchant: m("Rheinwerk GmbH Gehalt", "Rheinwerk GmbH", "INCOME_WAGES", "income_salary", -385_000, -385_000),
    counterparty: "employer_ben",
  },
  // Ben moves euros to the US savings account: one transfer, a leg in each currency.
  {
    day: 26,
    account: "giro",
    merchant: m(
      "WISE TRANSFER TO USD ACCOUNT",
      "Wise",
      "TRANSFER_OUT_ACCOUNT_TRANSFER",
      "transfers_out",
      200_000,
      200_000,
    ),
  },
  {
    day: 26,
    account: "savings",
    merchant: m("WISE INC TRANSFER", "Wise", "TRANSFER_IN_ACCOUNT_TRANSFER", "transfers_in", -224_000, -212_000),
  },
  {
    day: 28,
    account: "savings",
    merchant: m("INTEREST PAYMENT", null, "INCOME_INTEREST_EARNED", "income_interest", -9_500, -6_000),
  },
];

/** Trips (all tagged vacation): [month, first day, last day] windows that never overlap. */
interface Trip {
  name: string;
  windows: [number, number, number][];
  /** Bought on the first day, from home. */
  start: { account: AccountKey; merchant: Merchant; comment?: string }[];
  /** Spent on every day away: the account, how many purchases a day, where. */
  account: AccountKey;
  rate: number;
  daily: Merchant[];
}

const TRIPS: Trip[] = [
  {
    name: "Lisbon",
    windows: [[7, 12, 19]],
    start: [
      {
        account: "card",
        merchant: m("UNITED AIRLINES", "United Airlines", "TRAVEL_FLIGHTS", "travel_flights", 48_000, 92_000),
      },
      {
        account: "card",
        merchant: m("UNITED AIRLINES", "United Airlines", "TRAVEL_FLIGHTS", "travel_flights", 48_000, 92_000),
      },
      {
        account: "card",
        merchant: m("AIRBNB * HMQ2Z9K4TX", "Airbnb", "TRAVEL_LODGING", "travel_lodging", 120_000, 190_000),
        comment: "Lisbon: split with Mia and Jonas, they owe us half.",
      },
    ],
    account: "card",
    rate: 3,
    daily: [
      m("PASTEIS DE BELEM", "Pastéis de Belém", "FOOD_AND_DRINK_RESTAURANT", "food_and_drink_restaurants", 900, 2600),
      m(
        "TIME OUT MARKET LISBOA",
        "Time Out Market",
        "FOOD_AND_DRINK_RESTAURANT",
        "food_and_drink_restaurants",
        3200,
        8800,
      ),
      m(
        "UBER   *TRIP LISBOA",
        "Uber",
        "TRANSPORTATION_TAXIS_AND_RIDE_SHARES",
        "transportation_taxi_and_rideshare",
        700,
        2400,
      ),
      m("PINGO DOCE LISBOA", "Pingo Doce", "FOOD_AND_DRINK_GROCERIES", "food_and_drink_groceries", 800, 4500),
    ],
  },
  {
    name: "Lake Tahoe",
    windows: [[2, 14, 21]],
    start: [
      {
        account: "card",
        merchant: m(
          "VAIL RESORTS EPIC PASS",
          "Heavenly Mountain Resort",
          "ENTERTAINMENT_SPORTING_EVENTS_AMUSEMENT_PARKS_AND_MUSEUMS",
          "entertainment_events",
          38_000,
          52_000,
        ),
      },
      {
        account: "card",
        merchant: m("AIRBNB * HM7TAHOE22", "Airbnb", "TRAVEL_LODGING", "travel_lodging", 140_000, 210_000),
        comment: "Tahoe cabin: split with Mia and Jonas, they owe us half.",
      },
      {
        account: "card",
        merchant: m("HERTZ RENT-A-CAR", "Hertz", "TRAVEL_RENTAL_CARS", "travel_car_rental", 32_000, 48_000),
      },
    ],
    account: "card",
    rate: 3,
    daily: [
      m("SIDESTREET TAHOE", "Sidestreet", "FOOD_AND_DRINK_RESTAURANT", "food_and_drink_restaurants", 4200, 12800),
      m("RALEY'S SOUTH LAKE", "Raley's", "FOOD_AND_DRINK_GROCERIES", "food_and_drink_groceries", 2800, 9600),
      m("CHEVRON 0098812", "Chevron", "TRANSPORTATION_GAS", "transportation_fuel", 4200, 7900),
      m("ALPINA COFFEE", "Alpina Coffee", "FOOD_AND_DRINK_COFFEE", "food_and_drink_coffee", 450, 950),
    ],
  },
  {
    // Visiting Ben's family: flights in dollars, everything in Berlin from his euro account.
    name: "Berlin",
    windows: [
      [4, 4, 17],
      [12, 20, 31],
    ],
    start: [
      {
        account: "card",
        merchant: m("LUFTHANSA 2204512", "Lufthansa", "TRAVEL_FLIGHTS", "travel_flights", 62_000, 115_000),
      },
      {
        account: "card",
        merchant: m("LUFTHANSA 2204513", "Lufthansa", "TRAVEL_FLIGHTS", "travel_flights", 62_000, 115_000),
      },
    ],
    account: "giro",
    rate: 4.5,
    daily: [
      m("Bonanza Coffee Heroes", "Bonanza Coffee", "FOOD_AND_DRINK_COFFEE", "food_and_drink_coffee", 280, 490),
      m("Einstein Kaffee", "Einstein Kaffee", "FOOD_AND_DRINK_COFFEE", "food_and_drink_coffee", 260, 520),
      m("REWE Markt GmbH", "REWE", "FOOD_AND_DRINK_GROCERIES", "food_and_drink_groceries", 800, 8500),
      m("EDEKA Center", "EDEKA", "FOOD_AND_DRINK_GROCERIES", "food_and_drink_groceries", 650, 7200),
      m("Curry 36", "Curry 36", "FOOD_AND_DRINK_FAST_FOOD", "food_and_drink_restaurants", 650, 1400),
      m("Restaurant Nola", "Nola", "FOOD_AND_DRINK_RESTAURANT", "food_and_drink_restaurants", 2400, 7800),
      m("BVG Ticket App", "BVG", "TRANSPORTATION_PUBLIC_TRANSIT", "transportation_public_transit", 350, 350),
      m("DB Fernverkehr AG", "Deutsche Bahn", "TRAVEL_OTHER_TRAVEL", "transportation_public_transit", 2990, 8990),
      m("dm-drogerie markt", "dm", "PERSONAL_CARE_OTHER_PERSONAL_CARE", "personal_care_hair_and_beauty", 390, 3900),
    ],
  },
];

const tripOn = (month: number, dom: number) =>
  TRIPS.flatMap((trip) =>
    trip.windows
      .filter(([mo, first, last]) => mo === month && dom >= first && dom <= last)
      .map(([, first]) => ({ trip, first })),
  )[0];

const WORK_TRIP = [
  m("HILTON HOTELS", "Hilton", "TRAVEL_LODGING", "travel_lodging", 18_900, 42_000),
  m("ALASKA AIRLINES", "Alaska Airlines", "TRAVEL_FLIGHTS", "travel_flights", 21_000, 46_000),
  m(
    "TST* HOUSE OF PRIME RIB",
    "House of Prime Rib",
    "FOOD_AND_DRINK_RESTAURANT",
    "food_and_drink_restaurants",
    9_800,
    26_000,
  ),
];
const REFUNDS = [
  m("AMAZON MKTPL REFUND", "Amazon", "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES", "income_refunds", -8_999, -899),
  m("TARGET REFUND 00012345", "Target", "GENERAL_MERCHANDISE_SUPERSTORES", "income_refunds", -6_500, -1_200),
];

// ---------- one day of transactions ----------

interface DemoItem {
  account: AccountKey;
  date: string;
  id: string;
  cents: number;
  merchant: Merchant;
  tags: TagSlug[];
  counterparty?: CounterpartyKey;
  comment?: string;
}

/** Ann is paid every other Friday, counted from a fixed Friday so the schedule never drifts. */
const PAYDAY_EPOCH = dayMs("2024-01-05");

/**
 * Everything that happened on `date`, from a PRNG seeded by the date alone.
 * Ids are `demo-<date>-<n>` in generation order, so the same day always
 * yields the same ids (the idempotency key of the import).
 */
export function demoDay(date: string): DemoItem[] {
  const items = everydayOn(date);
  if (date.endsWith("-22")) items.push(...cardPayment(date));
  return items;
}

/**
 * On the 22nd the card's statement (the 22nd of last month to the 21st) is
 * paid in full from checking: both legs carry the same amount. Every day is a
 * pure function of its date, so the statement is recomputed, not remembered.
 */
function cardPayment(date: string): DemoItem[] {
  const d = new Date(dayMs(date));
  let owed = 0;
  for (let ms = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 22); ms < dayMs(date); ms += DAY_MS) {
    for (const item of everydayOn(isoDay(ms))) if (item.account === "card") owed += item.cents;
  }
  if (owed <= 0) return [];
  const payment = (account: AccountKey, name: string, amount: number): DemoItem => ({
    account,
    date,
    id: `demo-${date}-card-payment`,
    cents: amount,
    merchant: m(name, null, "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT", "transfers_credit_card_payment", amount, amount),
    tags: [],
  });
  return [payment("checking", "SAPPHIRE CARD AUTOPAY", owed), payment("card", "AUTOMATIC PAYMENT - THANK YOU", -owed)];
}

/** A day's transactions apart from the card payment. */
function everydayOn(date: string): DemoItem[] {
  const rng = prng(seedOf(`coffer-demo:${date}`));
  const ms = dayMs(date);
  const d = new Date(ms);
  const [month, dom, weekday] = [d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCDay()];
  const items: DemoItem[] = [];
  const add = (account: AccountKey, merchant: Merchant, extra: Partial<DemoItem> = {}) => {
    items.push({
      account,
      date,
      id: `demo-${date}-${items.length + 1}`,
      cents: cents(rng, merchant.min, merchant.max),
      merchant,
      tags: [],
      ...extra,
    });
  };

  for (const bill of MONTHLY) {
    if (bill.day === dom && (!bill.months || bill.months.includes(month))) {
      add(bill.account, bill.merchant, {
        counterparty: bill.counterparty,
        tags: bill.tag ? [bill.tag] : [],
        comment: bill.comment,
      });
    }
  }
  if (weekday === 5 && Math.round((ms - PAYDAY_EPOCH) / DAY_MS) % 14 === 0) {
    add(
      "checking",
      m("NORTHWIND LABS PAYROLL", "Northwind Labs", "INCOME_WAGES", "income_salary", -557_692, -557_692),
      { counterparty: "employer_ann" },
    );
  }
  if (dom === 2) {
    add(
      "checking",
      m("ONLINE TRANSFER TO SAVINGS ...5512", null, "TRANSFER_OUT_SAVINGS", "transfers_savings", 50_000, 50_000),
    );
    add(
      "savings",
      m(
        "ONLINE TRANSFER FROM CHECKING ...4821",
        null,
        "TRANSFER_IN_ACCOUNT_TRANSFER",
        "transfers_in",
        -50_000,
        -50_000,
      ),
    );
  }

  const away = tripOn(month, dom);
  for (const kind of DAILY) {
    if (away && !kind.online) continue;
    for (let i = occurrences(rng, kind.rate); i > 0; i--) {
      // About one everyday purchase in twelve is left for the household (or a rule) to categorize.
      const merchant = pick(rng, kind.merchants);
      add(kind.account, rng() < 0.08 ? { ...merchant, category: null } : merchant);
    }
  }
  if (rng() < 0.05) {
    add("card", pick(rng, REFUNDS), rng() < 0.3 ? { comment: "Returned it: arrived damaged." } : {});
  }
  if (!away && rng() < 0.04) {
    // A work expense Ann pays and gets back about two weeks later.
    const merchant = pick(rng, WORK_TRIP);
    const spent = cents(rng, merchant.min, merchant.max);
    items.push({
      account: "card",
      date,
      id: `demo-${date}-${items.length + 1}`,
      cents: spent,
      merchant,
      tags: ["reimbursable"],
      comment: rng() < 0.5 ? "Submitted in the expense report." : undefined,
    });
    const back = isoDay(ms + (12 + Math.floor(rng() * 6)) * DAY_MS);
    items.push({
      account: "checking",
      date: back,
      id: `demo-${date}-${items.length + 1}`,
      cents: -spent,
      merchant: m(
        "NORTHWIND LABS EXPENSE REIMB",
        "Northwind Labs",
        "INCOME_OTHER_INCOME",
        "income_other",
        -spent,
        -spent,
      ),
      tags: ["reimbursable"],
      counterparty: "employer_ann",
    });
  }
  if (away) {
    const { trip, first } = away;
    if (dom === first)
      for (const buy of trip.start) add(buy.account, buy.merchant, { tags: ["vacation"], comment: buy.comment });
    for (let i = occurrences(rng, trip.rate); i > 0; i--)
      add(trip.account, pick(rng, trip.daily), { tags: ["vacation"] });
  }
  return items;
}

// ---------- loading ----------

export interface DemoSummary {
  users: number;
  accounts: number;
  transactions: number;
  insertedTransactions: number;
  byCurrency: Record<string, number>;
  categorized: number;
  tagged: number;
  comments: number;
  insertedComments: number;
  from: string;
  to: string;
}

async function ensureUsers(tx: Em): Promise<Record<"ann" | "ben", string>> {
  const ids = {} as Record<"ann" | "ben", string>;
  for (const u of USERS) {
    const [found] = await query<{ id: string }>(tx, `select id from users where email = ?`, [u.email]);
    ids[u.key] = found?.id ?? (await createUser(tx, { name: u.name, email: u.email })).id;
  }
  return ids;
}

/** Inserts a row keyed by a natural key unless it exists; a short-id clash just tries again. */
async function ensureRow(
  tx: Em,
  find: () => Promise<string | undefined>,
  insert: (shortId: string) => Promise<unknown>,
): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await find();
    if (existing) return existing;
    await insert(newShortId());
  }
  const existing = await find();
  if (!existing) throw new Error("could not insert a demo row");
  return existing;
}

async function ensureAccounts(tx: Em, users: Record<"ann" | "ben", string>): Promise<Record<AccountKey, string>> {
  const ids = {} as Record<AccountKey, string>;
  for (const a of ACCOUNTS) {
    const providerAccountId = `demo:${a.key}`;
    const credit = a.type === "credit";
    ids[a.key] = await ensureRow(
      tx,
      async () =>
        (
          await query<{ id: string }>(tx, `select id from accounts where provider = ? and provider_account_id = ?`, [
            PROVIDER,
            providerAccountId,
          ])
        )[0]?.id,
      (shortId) =>
        query(
          tx,
          `insert into accounts (id, short_id, user_id, provider, provider_account_id, name, official_name, type, subtype, mask, iso_currency_code, balance_limit)
           values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
          [
            crypto.randomUUID(),
            shortId,
            users[a.owner],
            PROVIDER,
            providerAccountId,
            a.name,
            a.officialName,
            a.type,
            a.subtype,
            a.mask,
            a.currency,
            credit ? formatCents(a.openingCents) : null,
          ],
        ),
    );
  }
  return ids;
}

async function ensureTags(tx: Em): Promise<Record<TagSlug, string>> {
  const ids = {} as Record<TagSlug, string>;
  for (const t of TAGS) {
    ids[t.slug] = await ensureRow(
      tx,
      async () => (await query<{ id: string }>(tx, `select id from tags where slug = ?`, [t.slug]))[0]?.id,
      (shortId) =>
        query(
          tx,
          `insert into tags (id, short_id, slug, display_name, color) values (?, ?, ?, ?, ?) on conflict do nothing`,
          [crypto.randomUUID(), shortId, t.slug, t.displayName, t.color],
        ),
    );
  }
  return ids;
}

async function ensureCounterparties(tx: Em): Promise<Record<CounterpartyKey, string>> {
  const ids = {} as Record<CounterpartyKey, string>;
  for (const c of COUNTERPARTIES) {
    ids[c.key] = await ensureRow(
      tx,
      async () =>
        (await query<{ id: string }>(tx, `select id from counterparties where lower(name) = lower(?)`, [c.name]))[0]
          ?.id,
      (shortId) =>
        query(
          tx,
          `insert into counterparties (id, short_id, name, type, notes) values (?, ?, ?, ?, ?) on conflict do nothing`,
          [crypto.randomUUID(), shortId, c.name, c.type, c.notes],
        ),
    );
  }
  return ids;
}

/** Balances follow from the transactions: depository = opening − net outflow; a card owes its net spending. */
async function updateBalances(tx: Em, accounts: Record<AccountKey, string>): Promise<void> {
  for (const a of ACCOUNTS) {
    const net = `coalesce((select sum(amount) from transactions where account_id = ? and deleted_at is null), 0)`;
    if (a.type === "credit") {
      await query(
        tx,
        `update accounts set balance_current = ${net}, balance_available = balance_limit - ${net}, updated_at = now() where id = ?`,
        [accounts[a.key], accounts[a.key], accounts[a.key]],
      );
    } else {
      await query(
        tx,
        `update accounts set balance_current = ?::numeric - ${net}, balance_available = ?::numeric - ${net}, updated_at = now() where id = ?`,
        [formatCents(a.openingCents), accounts[a.key], formatCents(a.openingCents), accounts[a.key], accounts[a.key]],
      );
    }
  }
}

/** Comments on a few transactions, each written once (a rerun finds it and skips it). */
async function addComments(tx: Em, accounts: Record<AccountKey, string>, items: DemoItem[]): Promise<number> {
  let inserted = 0;
  for (const item of items.filter((i) => i.comment)) {
    const [t] = await query<{ id: string }>(
      tx,
      `select id from transactions where account_id = ? and provider = ? and provider_transaction_id = ?`,
      [accounts[item.account], PROVIDER, item.id],
    );
    if (!t) continue;
    const existing = await query(tx, `select 1 from comments where transaction_id = ? and body = ?`, [
      t.id,
      item.comment,
    ]);
    if (existing.length > 0) continue;
    const id = crypto.randomUUID();
    await ensureRow(
      tx,
      async () => (await query<{ id: string }>(tx, `select id from comments where id = ?`, [id]))[0]?.id,
      (shortId) =>
        query(
          tx,
          `insert into comments (id, short_id, transaction_id, body, author_type, author_name) values (?, ?, ?, ?, 'system', ?) on conflict do nothing`,
          [id, shortId, t.id, item.comment, ACTOR.name],
        ),
    );
    await recordAnnotation(tx, ACTOR, {
      entityType: "comment",
      entityId: id,
      transactionId: t.id,
      action: "comment_added",
      details: { body: item.comment },
    });
    inserted++;
  }
  return inserted;
}

/**
 * Loads (or tops up) the demo household in one database transaction and
 * returns what is there. `today` (YYYY-MM-DD, default the current UTC date)
 * ends the window: the 365 days before it.
 */
export async function loadDemo(em: Em, opts: { today?: string } = {}): Promise<DemoSummary> {
  const today = opts.today ?? isoDay(Date.now());
  if (!/^\d{4}-\d{2}-\d{2}$/.test(today) || Number.isNaN(dayMs(today)))
    throw new Error(`today must be YYYY-MM-DD, got ${today}`);
  const from = isoDay(dayMs(today) - WINDOW_DAYS * DAY_MS);
  const to = isoDay(dayMs(today) - DAY_MS);

  return em.transactional(async (tx) => {
    const users = await ensureUsers(tx);
    const accounts = await ensureAccounts(tx, users);
    const tags = await ensureTags(tx);
    const counterparties = await ensureCounterparties(tx);
    const categories = new Map(
      (await query<{ slug: string; id: string }>(tx, `select slug, id from categories`)).map((c) => [c.slug, c.id]),
    );
    const currencyOf = new Map(ACCOUNTS.map((a) => [a.key, a.currency]));

    const items: DemoItem[] = [];
    for (let ms = dayMs(from); ms <= dayMs(to); ms += DAY_MS) {
      // Items dated after the window (a reimbursement still to come) wait for a later run.
      items.push(...demoDay(isoDay(ms)).filter((i) => i.date <= to));
    }
    const rows: NewTransaction[] = items.map((i) => ({
      accountId: accounts[i.account],
      amount: formatCents(i.cents),
      isoCurrencyCode: currencyOf.get(i.account)!,
      date: i.date,
      provider: PROVIDER,
      providerTransactionId: i.id,
      providerName: i.merchant.name,
      providerMerchantName: i.merchant.merchant,
      providerCategoryPrimary: i.merchant.primary,
      providerCategoryDetailed: i.merchant.detailed,
      categoryId: i.merchant.category ? (categories.get(i.merchant.category) ?? null) : null,
      categorySource: "system",
      tagIds: i.tags.map((t) => tags[t]),
      counterpartyId: i.counterparty ? counterparties[i.counterparty] : null,
    }));
    const inserted = await insertTransactions(tx, rows);
    await updateBalances(tx, accounts);
    const insertedComments = await addComments(tx, accounts, items);
    return {
      ...(await summarize(tx, Object.values(accounts))),
      insertedTransactions: inserted.length,
      insertedComments,
      from,
      to,
    };
  });
}

async function summarize(tx: Em, accountIds: string[]) {
  const list = `{${accountIds.join(",")}}`;
  const [totals] = await query<{
    transactions: number;
    categorized: number;
    tagged: number;
    comments: number;
    users: number;
  }>(
    tx,
    `select count(*)::int as transactions,
            count(*) filter (where category_id is not null)::int as categorized,
            count(*) filter (where cardinality(tag_ids) > 0)::int as tagged,
            (select count(*)::int from comments c join transactions t on t.id = c.transaction_id where t.account_id = any(?::uuid[])) as comments,
            (select count(distinct user_id)::int from accounts where id = any(?::uuid[])) as users
     from transactions where account_id = any(?::uuid[])`,
    [list, list, list],
  );
  const byCurrency = await query<{ iso_currency_code: string; n: number }>(
    tx,
    `select iso_currency_code, count(*)::int as n from transactions where account_id = any(?::uuid[]) group by 1 order by 1`,
    [list],
  );
  return {
    ...totals,
    accounts: accountIds.length,
    byCurrency: Object.fromEntries(byCurrency.map((r) => [r.iso_currency_code, r.n])),
  };
}

export function describeDemo(s: DemoSummary): string {
  const currencies = Object.entries(s.byCurrency)
    .map(([c, n]) => `${n} ${c}`)
    .join(", ");
  return [
    `Demo household loaded (${s.from} to ${s.to}):`,
    `  users          ${s.users} (ann@demo.coffer.local, ben@demo.coffer.local)`,
    `  accounts       ${s.accounts}`,
    `  transactions   ${s.transactions} (${currencies}); ${s.insertedTransactions} new this run`,
    `  categorized    ${s.categorized}, tagged ${s.tagged}`,
    `  comments       ${s.comments}; ${s.insertedComments} new this run`,
    "",
  ].join("\n");
}
