/**
 * The one SDK instance of the app, on this page's own origin (the dev server
 * proxies /api to the gateway; in production the gateway serves both).
 */
import { createSdk } from "@/api";

export const sdk = createSdk({ baseUrl: globalThis.location?.origin ?? "" });
