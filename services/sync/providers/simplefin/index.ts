export { SimplefinProvider, simplefinInfo } from "./provider.js";
export { MAX_WINDOW_DAYS, type SimplefinOptions } from "./options.js";
