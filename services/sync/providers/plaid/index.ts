export { PlaidProvider, plaidInfo } from "./provider.js";
export { PLAID_ENVS, plaidBaseUrl, type PlaidEnv, type PlaidOptions } from "./options.js";
