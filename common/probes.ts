/** The health probes every gateway serves, without a key. */
export const PROBE_URLS = ["/health", "/health/live", "/health/ready"] as const;

/** The core's readiness RPC, which a gateway's /health/ready calls. */
export const CORE_READY_PATH = "/coffer.v1.SystemService/CheckReady";

const PROBE_PATHS = new Set<string>([...PROBE_URLS, CORE_READY_PATH]);

/**
 * Whether a request is a health probe: supervisors and load balancers poll
 * these every few seconds, so a line for each would bury everything else.
 */
export const isProbe = (url: string) => PROBE_PATHS.has(url.split("?", 1)[0]);
