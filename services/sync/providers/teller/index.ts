export { TellerProvider, tellerInfo } from "./provider.js";
export { TELLER_BASE_URL, readPem, type TellerOptions } from "./options.js";
