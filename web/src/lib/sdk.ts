/** The one SDK instance of the app: same-origin (the dev server proxies /api). */
import { createSdk } from "@/api";

export const sdk = createSdk();
