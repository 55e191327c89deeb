/** Coffer's release (package.json "version") and the REST contract's version. */
export const VERSION = "0.1.0";
export const CONTRACT_VERSION = "1.1.0";
