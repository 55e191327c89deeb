/**
 * The category taxonomy every new Coffer starts with: two levels, slugs in
 * [a-z0-9_], each child slug prefixed by its parent's. `uncategorized` is the
 * system category a transaction has when nothing assigned one; it cannot be
 * deleted. Households can add, rename, merge and delete the rest.
 */
export interface SeedCategory {
  slug: string;
  displayName: string;
  children: { slug: string; displayName: string }[];
}

function group(slug: string, displayName: string, children: [string, string][]): SeedCategory {
  return { slug, displayName, children: children.map(([s, d]) => ({ slug: `${slug}_${s}`, displayName: d })) };
}

export const UNCATEGORIZED = "uncategorized";

export const CATEGORY_TAXONOMY: SeedCategory[] = [
  group("income", "Income", [
    ["salary", "Salary"],
    ["interest", "Interest"],
    ["dividends", "Dividends"],
    ["refunds", "Refunds"],
    ["other", "Other income"],
  ]),
  group("transfers", "Transfers", [
    ["in", "Transfers in"],
    ["out", "Transfers out"],
    ["credit_card_payment", "Credit card payment"],
    ["savings", "Savings"],
  ]),
  group("loan_payments", "Loan payments", [
    ["mortgage", "Mortgage"],
    ["car", "Car loan"],
    ["student", "Student loan"],
    ["other", "Other loans"],
  ]),
  group("bank_fees", "Bank fees", [
    ["atm", "ATM fees"],
    ["overdraft", "Overdraft fees"],
    ["foreign_transaction", "Foreign transaction fees"],
    ["other", "Other fees"],
  ]),
  group("entertainment", "Entertainment", [
    ["streaming", "Streaming & subscriptions"],
    ["events", "Events & tickets"],
    ["games", "Games"],
    ["other", "Other entertainment"],
  ]),
  group("food_and_drink", "Food & drink", [
    ["groceries", "Groceries"],
    ["restaurants", "Restaurants"],
    ["coffee", "Coffee"],
    ["delivery", "Food delivery"],
    ["alcohol", "Alcohol & bars"],
  ]),
  group("general_merchandise", "Shopping", [
    ["clothing", "Clothing"],
    ["electronics", "Electronics"],
    ["online", "Online marketplaces"],
    ["gifts", "Gifts"],
    ["other", "Other shopping"],
  ]),
  group("home", "Home", [
    ["furniture", "Furniture"],
    ["hardware", "Hardware & garden"],
    ["repairs", "Repairs & maintenance"],
  ]),
  group("medical", "Medical", [
    ["pharmacy", "Pharmacy"],
    ["doctor", "Doctors"],
    ["dental", "Dental"],
    ["other", "Other medical"],
  ]),
  group("personal_care", "Personal care", [
    ["gym", "Gym & fitness"],
    ["hair_and_beauty", "Hair & beauty"],
    ["laundry", "Laundry"],
  ]),
  group("services", "Services", [
    ["insurance", "Insurance"],
    ["education", "Education"],
    ["childcare", "Childcare"],
    ["other", "Other services"],
  ]),
  group("government_and_charity", "Government & charity", [
    ["taxes", "Taxes"],
    ["donations", "Donations"],
  ]),
  group("transportation", "Transportation", [
    ["fuel", "Fuel"],
    ["public_transit", "Public transit"],
    ["taxi_and_rideshare", "Taxi & rideshare"],
    ["parking", "Parking & tolls"],
    ["car_maintenance", "Car maintenance"],
  ]),
  group("travel", "Travel", [
    ["flights", "Flights"],
    ["lodging", "Lodging"],
    ["car_rental", "Car rental"],
  ]),
  group("rent_and_utilities", "Rent & utilities", [
    ["rent", "Rent"],
    ["electricity", "Electricity"],
    ["gas_and_water", "Gas & water"],
    ["internet_and_phone", "Internet & phone"],
  ]),
  { slug: UNCATEGORIZED, displayName: "Uncategorized", children: [] },
];
