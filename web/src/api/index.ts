export { createApiClient, unwrap, type ApiClient, type ClientOptions } from "./client";
export {
  ApiError,
  isApiErrorBody,
  parseRetryAfter,
  readFields,
  toApiError,
  type ApiErrorBody,
  type FieldCode,
  type FieldError,
} from "./errors";
export * from "./events";
export { createSdk, API_PREFIX, type Sdk, type MailAction, type InboxQuery, type SearchQuery } from "./sdk";
export type { WebhookCalls, WebhookScope } from "./accountSdk";
export type * from "./types";
export type { paths, components, operations } from "./schema";
export { limits } from "./schema/limits";
