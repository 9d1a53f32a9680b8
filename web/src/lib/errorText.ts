/**
 * A refusal as the user reads it, in their language: said from the API's `code`
 * and `fields` (docs/api.md § Errors), never from its `message` — that is English
 * for developers, and for a 422 it is pydantic's ("String should have at most 998
 * characters"). Anything not from the API (a bug's TypeError) is "Something went wrong".
 */
import type { TFunction } from "i18next";
import { ApiError, type FieldError } from "@/api";

/** What a place knows that the error does not: its own words for some refusals. */
export interface ErrorWords {
  /** Sentences by the API's `code`, before the general ones: `{ unauthorized: t("errors.code.wrongLogin") }`. */
  codes?: Readonly<Record<string, string>>;
  /** Sentences by `field.code` of a named input: `{ "name.taken": () => t("errors.specific.folderNameTaken") }`. */
  fields?: Readonly<Record<string, (problem: FieldError) => string>>;
}

// Inputs that are lists: their `too_long` counts items, not characters.
const LISTS = new Set(["cc", "attachment_ids", "workspaces", "options"]);
const BUDGETS = new Set(["budget", "budget_limit", "default_budget"]);

const MIB = 1024 * 1024;

function number(value: number): string {
  return value.toLocaleString("en-US");
}

/** A size in bytes as people say it: "25 MiB", "512 KiB", "900 bytes". */
export function byteSize(bytes: number): string {
  if (bytes >= MIB) return `${number(Math.round((bytes / MIB) * 10) / 10)} MiB`;
  if (bytes >= 1024) return `${number(Math.round(bytes / 1024))} KiB`;
  return `${number(bytes)} bytes`;
}

/** How the user calls the input `field` (`cc.1` is the cc field's). */
export function fieldLabel(field: string, t: TFunction): string {
  const labels: Record<string, () => string> = {
    subject: () => t("errors.label.subject"),
    to: () => t("errors.label.to"),
    cc: () => t("errors.label.cc"),
    body: () => t("errors.label.body"),
    name: () => t("errors.label.name"),
    username: () => t("errors.label.username"),
    password: () => t("errors.label.password"),
    current_password: () => t("errors.label.current_password"),
    new_password: () => t("errors.label.new_password"),
    session_alias: () => t("errors.label.session_alias"),
    budget: () => t("errors.label.budget"),
    budget_limit: () => t("errors.label.budget_limit"),
    default_budget: () => t("errors.label.default_budget"),
    q: () => t("errors.label.q"),
    label: () => t("errors.label.label"),
    expires_in: () => t("errors.label.expires_in"),
    lifecycle: () => t("errors.label.lifecycle"),
    note: () => t("errors.label.note"),
    decision: () => t("errors.label.decision"),
    attachment_ids: () => t("errors.label.attachment_ids"),
    file: () => t("errors.label.file"),
    folder_id: () => t("errors.label.folder_id"),
    limit: () => t("errors.label.limit"),
    offset: () => t("errors.label.offset"),
    status: () => t("errors.label.status"),
  };
  const base = field.split(".")[0] ?? field;
  return Object.hasOwn(labels, base) ? (labels[base]?.() ?? base) : t("errors.label.fallback");
}

/** This gateway's own sentence for a field and what is wrong with it, when it has one. */
function specific(problem: FieldError, t: TFunction): string | null {
  const { field, code } = problem;
  if (field === "current_password" && code === "wrong") return t("errors.specific.currentPasswordWrong");
  if ((field === "subject" || field === "title") && code === "format") return t("errors.specific.subjectFormat");
  if (BUDGETS.has(field) && ["invalid", "too_large", "too_small", "type"].includes(code)) return t("errors.specific.budget");
  if (field === "q" && code === "format") return t("errors.specific.searchFilter");
  return null;
}

/** One input's problem in a sentence: "Subject: at most 998 characters." */
export function fieldText(problem: FieldError, t: TFunction): string {
  const own = specific(problem, t);
  if (own) return own;
  const field = fieldLabel(problem.field, t);
  const { code, limit } = problem;
  const list = LISTS.has(problem.field.split(".")[0] ?? "");
  const bound = limit === undefined ? undefined : number(limit);
  switch (code) {
    case "missing":
      return t("errors.field.missing", { field });
    case "too_long":
      if (limit === undefined) return t("errors.field.tooLong", { field });
      if (problem.field === "file") return t("errors.field.tooLongSize", { field, size: byteSize(limit) });
      return list ? t("errors.field.tooLongItems", { field, limit: bound }) : t("errors.field.tooLongChars", { field, limit: bound });
    case "too_short":
      if (limit === undefined) return t("errors.field.tooShort", { field });
      return list ? t("errors.field.tooShortItems", { field, limit: bound }) : t("errors.field.tooShortChars", { field, limit: bound });
    case "too_large":
      return limit === undefined ? t("errors.field.tooLargeBare", { field }) : t("errors.field.tooLarge", { field, limit: bound });
    case "too_small":
      return limit === undefined ? t("errors.field.tooSmallBare", { field }) : t("errors.field.tooSmall", { field, limit: bound });
    case "format":
      return t("errors.field.format", { field });
    case "type":
      return t("errors.field.type", { field });
    case "choice":
      return t("errors.field.choice", { field });
    case "unknown":
      return t("errors.field.unknown", { field });
    case "invalid":
      return t("errors.field.invalid", { field });
    case "wrong":
      return t("errors.field.wrong", { field });
    case "taken":
      return t("errors.field.taken", { field });
    case "reserved":
      return t("errors.field.reserved", { field });
  }
}

/** The general sentence for the API's `code` (or, failing that, its status). */
function codeText(error: ApiError, t: TFunction): string {
  switch (error.code) {
    case "network_error":
      return t("errors.network");
    case "unauthorized":
      return t("errors.code.unauthorized");
    case "forbidden":
      return t("errors.code.forbidden");
    case "csrf_origin":
      return t("errors.code.csrfOrigin");
    case "not_found":
      return t("errors.code.notFound");
    case "bad_request":
    case "malformed_json":
    case "method_not_allowed":
    case "unsupported_media_type":
      return t("errors.code.unreadable");
    case "request_timeout":
      return t("errors.code.requestTimeout");
    case "name_taken":
      return t("errors.code.nameTaken");
    case "already_decided":
      return t("errors.code.alreadyDecided");
    case "workspace_conflict":
      return t("errors.code.workspaceConflict");
    case "draft_changed":
      return t("errors.code.draftChanged");
    case "payload_too_large":
      return t("errors.code.payloadTooLarge");
    case "invalid_request":
      return t("errors.code.invalidRequest");
    case "invalid_address":
      return t("errors.code.invalidAddress");
    case "outbound_not_allowed":
      return t("errors.code.outboundNotAllowed");
    case "unknown_recipient":
      return t("errors.code.unknownRecipient");
    case "unknown_workspace":
      return t("errors.code.unknownWorkspace");
    case "unknown_alias":
      return t("errors.code.unknownAlias");
    case "auto_not_allowed":
      return t("errors.code.autoNotAllowed");
    case "hop_limit_reached":
      return t("errors.code.hopLimitReached");
    case "idempotency_key_reused":
      return t("errors.code.idempotencyKeyReused");
    case "limit_reached":
      return t("errors.code.limitReached");
    case "invalid_decision":
      return t("errors.code.invalidDecision");
    case "budget_exhausted":
      return t("errors.code.budgetExhausted");
    case "rate_limited":
      return error.retryAfter === null ? t("errors.code.rateLimited") : t("errors.code.rateLimitedFor", { count: error.retryAfter });
    case "storage_full":
      return t("errors.code.storageFull");
    case "internal_error":
      return t("errors.code.internalError");
    case "too_many_connections":
    case "shutting_down":
      return t("errors.code.unavailable");
  }
  if (error.status === 0) return t("errors.network");
  if (error.status === 502 || error.status === 503 || error.status === 504) return t("errors.code.unavailable");
  return t("errors.code.httpStatus", { status: error.status });
}

/**
 * What to tell the user about `error`: each named input's problem, else this
 * place's own sentence for the code, else the general one.
 */
export function errorText(error: unknown, t: TFunction, words: ErrorWords = {}): string {
  if (!(error instanceof ApiError)) return t("errors.unknown");
  if (error.fields.length) {
    return error.fields
      .slice(0, 3)
      .map((problem) => words.fields?.[`${problem.field}.${problem.code}`]?.(problem) ?? fieldText(problem, t))
      .join(" ");
  }
  const own = words.codes?.[error.code];
  return own ?? codeText(error, t);
}
