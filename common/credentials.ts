/**
 * What the core answers a call that presents no credential at all. The
 * gateways answer a write without one themselves, with the same words, before
 * reading its body (gateways/shared/credentials.ts).
 */
export const MISSING_CREDENTIALS_MESSAGE = "An API key is required in the X-API-Key header";
