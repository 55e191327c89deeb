import type { ProviderName } from "./providers/provider.js";

/**
 * Providers' own categories mapped onto Coffer's seeded taxonomy
 * (services/ledger/taxonomy.ts), applied at import with category_source
 * "system". The provider's values are stored as they came
 * (provider_category_primary/_detailed) whatever the mapping says, so a rule
 * can still match them, and a later rule may refine the mapped category.
 *
 * Plaid: Personal Finance Category codes, v1 and v2. A detailed code is
 * looked up first, then its primary; the set is open, so an unknown code maps
 * to its primary's category or to nothing. Teller: its flat list. SimpleFIN
 * and CSV carry free text: it maps when it names a taxonomy category (slug or
 * display name, any case).
 */

const PLAID_PRIMARY: Record<string, string | null> = {
  INCOME: "income_other",
  TRANSFER_IN: "transfers_in",
  TRANSFER_OUT: "transfers_out",
  LOAN_PAYMENTS: "loan_payments_other",
  LOAN_DISBURSEMENTS: "transfers_in",
  BANK_FEES: "bank_fees_other",
  ENTERTAINMENT: "entertainment_other",
  FOOD_AND_DRINK: "food_and_drink",
  GENERAL_MERCHANDISE: "general_merchandise_other",
  HOME_IMPROVEMENT: "home",
  MEDICAL: "medical_other",
  PERSONAL_CARE: "personal_care",
  GENERAL_SERVICES: "services_other",
  GOVERNMENT_AND_NON_PROFIT: "government_and_charity",
  TRANSPORTATION: "transportation",
  TRAVEL: "travel",
  RENT_AND_UTILITIES: "rent_and_utilities",
  OTHER: null,
};

const PLAID_DETAILED: Record<string, string> = {
  INCOME_WAGES: "income_salary",
  INCOME_SALARY: "income_salary",
  INCOME_DIVIDENDS: "income_dividends",
  INCOME_INTEREST_EARNED: "income_interest",
  INCOME_TAX_REFUND: "income_refunds",
  TRANSFER_IN_SAVINGS: "transfers_savings",
  TRANSFER_OUT_SAVINGS: "transfers_savings",
  LOAN_PAYMENTS_CAR_PAYMENT: "loan_payments_car",
  LOAN_PAYMENTS_CREDIT_CARD_PAYMENT: "transfers_credit_card_payment",
  LOAN_PAYMENTS_MORTGAGE_PAYMENT: "loan_payments_mortgage",
  LOAN_PAYMENTS_STUDENT_LOAN_PAYMENT: "loan_payments_student",
  BANK_FEES_ATM_FEES: "bank_fees_atm",
  BANK_FEES_OVERDRAFT_FEES: "bank_fees_overdraft",
  BANK_FEES_FOREIGN_TRANSACTION_FEES: "bank_fees_foreign_transaction",
  ENTERTAINMENT_TV_AND_MOVIES: "entertainment_streaming",
  ENTERTAINMENT_MUSIC_AND_AUDIO: "entertainment_streaming",
  ENTERTAINMENT_SPORTING_EVENTS_AMUSEMENT_PARKS_AND_MUSEUMS: "entertainment_events",
  ENTERTAINMENT_VIDEO_GAMES: "entertainment_games",
  FOOD_AND_DRINK_GROCERIES: "food_and_drink_groceries",
  FOOD_AND_DRINK_RESTAURANT: "food_and_drink_restaurants",
  FOOD_AND_DRINK_FAST_FOOD: "food_and_drink_restaurants",
  FOOD_AND_DRINK_COFFEE: "food_and_drink_coffee",
  FOOD_AND_DRINK_BEER_WINE_AND_LIQUOR: "food_and_drink_alcohol",
  GENERAL_MERCHANDISE_CLOTHING_AND_ACCESSORIES: "general_merchandise_clothing",
  GENERAL_MERCHANDISE_ELECTRONICS: "general_merchandise_electronics",
  GENERAL_MERCHANDISE_ONLINE_MARKETPLACES: "general_merchandise_online",
  GENERAL_MERCHANDISE_GIFTS_AND_NOVELTIES: "general_merchandise_gifts",
  HOME_IMPROVEMENT_FURNITURE: "home_furniture",
  HOME_IMPROVEMENT_HARDWARE: "home_hardware",
  HOME_IMPROVEMENT_REPAIR_AND_MAINTENANCE: "home_repairs",
  MEDICAL_PHARMACIES_AND_SUPPLEMENTS: "medical_pharmacy",
  MEDICAL_PRIMARY_CARE: "medical_doctor",
  MEDICAL_DENTAL_CARE: "medical_dental",
  PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS: "personal_care_gym",
  PERSONAL_CARE_HAIR_AND_BEAUTY: "personal_care_hair_and_beauty",
  PERSONAL_CARE_LAUNDRY_AND_DRY_CLEANING: "personal_care_laundry",
  GENERAL_SERVICES_INSURANCE: "services_insurance",
  GENERAL_SERVICES_EDUCATION: "services_education",
  GENERAL_SERVICES_CHILDCARE: "services_childcare",
  GOVERNMENT_AND_NON_PROFIT_TAX_PAYMENT: "government_and_charity_taxes",
  GOVERNMENT_AND_NON_PROFIT_DONATIONS: "government_and_charity_donations",
  TRANSPORTATION_GAS: "transportation_fuel",
  TRANSPORTATION_PUBLIC_TRANSIT: "transportation_public_transit",
  TRANSPORTATION_TAXIS_AND_RIDE_SHARES: "transportation_taxi_and_rideshare",
  TRANSPORTATION_PARKING: "transportation_parking",
  TRANSPORTATION_TOLLS: "transportation_parking",
  TRAVEL_FLIGHTS: "travel_flights",
  TRAVEL_LODGING: "travel_lodging",
  TRAVEL_RENTAL_CARS: "travel_car_rental",
  RENT_AND_UTILITIES_RENT: "rent_and_utilities_rent",
  RENT_AND_UTILITIES_GAS_AND_ELECTRICITY: "rent_and_utilities_electricity",
  RENT_AND_UTILITIES_WATER: "rent_and_utilities_gas_and_water",
  RENT_AND_UTILITIES_INTERNET_AND_CABLE: "rent_and_utilities_internet_and_phone",
  RENT_AND_UTILITIES_TELEPHONE: "rent_and_utilities_internet_and_phone",
};

const TELLER: Record<string, string | null> = {
  accommodation: "travel_lodging",
  advertising: "services_other",
  bar: "food_and_drink_alcohol",
  charity: "government_and_charity_donations",
  clothing: "general_merchandise_clothing",
  dining: "food_and_drink_restaurants",
  education: "services_education",
  electronics: "general_merchandise_electronics",
  entertainment: "entertainment_other",
  fuel: "transportation_fuel",
  general: null,
  groceries: "food_and_drink_groceries",
  health: "medical_other",
  home: "home",
  income: "income_other",
  insurance: "services_insurance",
  investment: "transfers_out",
  loan: "loan_payments_other",
  office: "general_merchandise_other",
  phone: "rent_and_utilities_internet_and_phone",
  service: "services_other",
  shopping: "general_merchandise_other",
  software: "services_other",
  sport: "personal_care_gym",
  tax: "government_and_charity_taxes",
  transport: "transportation",
  transportation: "transportation",
  utilities: "rent_and_utilities",
};

/** The taxonomy slug a provider's category maps to, or null for none (the row stays uncategorized). */
export function mappedCategorySlug(
  provider: ProviderName,
  primary: string | null,
  detailed: string | null,
  byName: (text: string) => string | null,
): string | null {
  switch (provider) {
    case "plaid": {
      const d = detailed?.trim().toUpperCase();
      const p = primary?.trim().toUpperCase();
      if (d && PLAID_DETAILED[d]) return PLAID_DETAILED[d];
      return p ? (PLAID_PRIMARY[p] ?? null) : null;
    }
    case "teller": {
      const p = primary?.trim().toLowerCase();
      return p ? (TELLER[p] ?? null) : null;
    }
    case "simplefin":
    case "csv": {
      const p = primary?.trim();
      return p ? byName(p) : null;
    }
  }
}
