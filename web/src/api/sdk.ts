/**
 * The AgentMail SDK for human front ends: one method per `/api/v1` call the web
 * UI makes, typed from the OpenAPI document, each resolving to the answer or
 * rejecting with an `ApiError`. Any other front end can use it as it is.
 */
import { externalAddressCalls, webhookCalls, type WebhookScope } from "./accountSdk";
import { createApiClient, unwrap, type ClientOptions } from "./client";
import type { operations } from "./schema";
import type { DraftInput, ForwardRequest, SendRequest, SessionChange } from "./types";
import { uploadAttachment, type UploadOptions } from "./upload";

type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;
export type InboxQuery = Query<"inbox_api_v1_me_mail_inbox_get">;
export type RowsQuery = Query<"inbox_rows_api_v1_me_mail_inbox_rows_get">;
export type TreeQuery = Query<"mail_tree_api_v1_me_mail__mail_id__tree_get">;
export type PermissionsQuery = Query<"my_requests_api_v1_me_permissions_get">;
export type SessionsQuery = Query<"list_sessions_api_v1_me_sessions_get">;
export type SearchQuery = Query<"search_api_v1_me_search_get">;
export type ActivityQuery = Query<"activity_api_v1_me_agents__name__activity_get">;
export type MailAction = "read" | "unread" | "archive" | "unarchive" | "delete" | "restore";
export type KeyLifecycle = "permanent" | "one_time" | "timed";

export const API_PREFIX = "/api/v1";

/** A client-generated key registered by its digest only (the key never leaves its host). */
const SHA256_HEX = /^[0-9a-f]{64}$/i;

export function createSdk(options: ClientOptions = {}) {
  const client = createApiClient(options);
  const baseUrl = options.baseUrl ?? "";
  const mail = (mail_id: string) => ({ params: { path: { mail_id } } });
  const session = (session_id: string) => ({ params: { path: { session_id } } });

  return {
    client,
    // auth and account
    login: (username: string, password: string) =>
      unwrap(client.POST("/api/v1/auth/login", { body: { username, password } })),
    logout: () => unwrap(client.POST("/api/v1/auth/logout")),
    me: () => unwrap(client.GET("/api/v1/me")),
    /** Who the login cookie signs in, or `{user: null}`: never a 401 (a console error in a browser). */
    signedIn: () => unwrap(client.GET("/api/v1/auth/session")),
    changePassword: (current_password: string, new_password: string) =>
      unwrap(client.POST("/api/v1/me/password", { body: { current_password, new_password } })),
    mailSettings: () => unwrap(client.GET("/api/v1/me/mail-settings")),
    listKeys: () => unwrap(client.GET("/api/v1/me/keys")),
    issueKey: (label: string, lifecycle: KeyLifecycle, expires_in?: string) =>
      unwrap(client.POST("/api/v1/me/keys", { body: { label, lifecycle, expires_in } })),
    revokeKey: (key_id: string) =>
      unwrap(client.DELETE("/api/v1/me/keys/{key_id}", { params: { path: { key_id } } })),
    // mail beyond the gateway, and webhooks (mine, or an admin's)
    ...externalAddressCalls(client),
    webhooks: (scope: WebhookScope) => webhookCalls(client, scope),
    // mail
    inbox: (query: InboxQuery = {}) =>
      unwrap(client.GET("/api/v1/me/mail/inbox", { params: { query } })),
    sent: (query: { limit?: number; offset?: number } = {}) =>
      unwrap(client.GET("/api/v1/me/mail/sent", { params: { query } })),
    inboxRows: (query: RowsQuery = {}) =>
      unwrap(client.GET("/api/v1/me/mail/inbox/rows", { params: { query } })),
    sentRows: (query: { limit?: number; offset?: number } = {}) =>
      unwrap(client.GET("/api/v1/me/mail/sent/rows", { params: { query } })),
    mail: (mail_id: string) => unwrap(client.GET("/api/v1/me/mail/{mail_id}", mail(mail_id))),
    tree: (mail_id: string, query: TreeQuery = {}) =>
      unwrap(
        client.GET("/api/v1/me/mail/{mail_id}/tree", {
          params: { path: { mail_id }, query },
        }),
      ),
    setMailState: (mail_id: string, action: MailAction) => {
      const p = mail(mail_id);
      switch (action) {
        case "read":
          return unwrap(client.POST("/api/v1/me/mail/{mail_id}/read", p));
        case "unread":
          return unwrap(client.POST("/api/v1/me/mail/{mail_id}/unread", p));
        case "archive":
          return unwrap(client.POST("/api/v1/me/mail/{mail_id}/archive", p));
        case "unarchive":
          return unwrap(client.POST("/api/v1/me/mail/{mail_id}/unarchive", p));
        case "delete":
          return unwrap(client.POST("/api/v1/me/mail/{mail_id}/delete", p));
        case "restore":
          return unwrap(client.POST("/api/v1/me/mail/{mail_id}/restore", p));
      }
    },
    /** File a mail I received in a folder of mine (out of the inbox, Archive or Trash). */
    fileMail: (mail_id: string, folder_id: string) =>
      unwrap(client.POST("/api/v1/me/mail/{mail_id}/file", { ...mail(mail_id), body: { folder_id } })),
    // folders of my own
    folders: () => unwrap(client.GET("/api/v1/me/folders")),
    createFolder: (name: string) => unwrap(client.POST("/api/v1/me/folders", { body: { name } })),
    renameFolder: (folder_id: string, name: string) =>
      unwrap(client.PATCH("/api/v1/me/folders/{folder_id}", { params: { path: { folder_id } }, body: { name } })),
    deleteFolder: (folder_id: string) =>
      unwrap(client.DELETE("/api/v1/me/folders/{folder_id}", { params: { path: { folder_id } } })),
    search: (query: SearchQuery) => unwrap(client.GET("/api/v1/me/search", { params: { query } })),
    send: (body: SendRequest) => unwrap(client.POST("/api/v1/me/mail/send", { body })),
    forward: (mail_id: string, body: ForwardRequest) =>
      unwrap(
        client.POST("/api/v1/me/mail/{mail_id}/forward", { ...mail(mail_id), body }),
      ),
    // drafts
    drafts: (query: { limit?: number; offset?: number } = {}) =>
      unwrap(client.GET("/api/v1/me/drafts", { params: { query } })),
    draft: (draft_id: string) =>
      unwrap(client.GET("/api/v1/me/drafts/{draft_id}", { params: { path: { draft_id } } })),
    createDraft: (body: DraftInput) => unwrap(client.POST("/api/v1/me/drafts", { body })),
    saveDraft: (draft_id: string, body: DraftInput) =>
      unwrap(
        client.PUT("/api/v1/me/drafts/{draft_id}", { params: { path: { draft_id } }, body }),
      ),
    deleteDraft: (draft_id: string) =>
      unwrap(client.DELETE("/api/v1/me/drafts/{draft_id}", { params: { path: { draft_id } } })),
    sendDraft: (draft_id: string) =>
      unwrap(
        client.POST("/api/v1/me/drafts/{draft_id}/send", { params: { path: { draft_id } } }),
      ),
    // attachments
    upload: (file: File, upload: Omit<UploadOptions, "baseUrl"> = {}) =>
      uploadAttachment(file, { ...upload, baseUrl }),
    attachmentUrl: (attachment_id: string) =>
      `${baseUrl}${API_PREFIX}/me/attachments/${encodeURIComponent(attachment_id)}`,
    // permissions
    permissions: (query: PermissionsQuery = {}) =>
      unwrap(client.GET("/api/v1/me/permissions", { params: { query } })),
    decide: (mail_id: string, decision: string, note?: string) =>
      unwrap(
        client.POST("/api/v1/me/permission/decide", {
          body: { mail_id, decision, note: note || null },
        }),
      ),
    // conversations
    sessions: (query: SessionsQuery = {}) =>
      unwrap(client.GET("/api/v1/me/sessions", { params: { query } })),
    session: (session_id: string) =>
      unwrap(client.GET("/api/v1/me/sessions/{session_id}", session(session_id))),
    changeSession: (session_id: string, body: Partial<SessionChange>) =>
      unwrap(
        client.PATCH("/api/v1/me/sessions/{session_id}", { ...session(session_id), body }),
      ),
    proposals: (session_id: string) =>
      unwrap(
        client.GET("/api/v1/me/sessions/{session_id}/proposals", {
          params: { path: { session_id }, query: { state: "pending" } },
        }),
      ),
    decideProposal: (session_id: string, proposal_id: string, accept: boolean) => {
      const p = { params: { path: { session_id, proposal_id } } };
      return accept
        ? unwrap(client.POST("/api/v1/me/sessions/{session_id}/proposals/{proposal_id}/accept", p))
        : unwrap(client.POST("/api/v1/me/sessions/{session_id}/proposals/{proposal_id}/reject", p));
    },
    participants: (session_id: string) =>
      unwrap(client.GET("/api/v1/me/sessions/{session_id}/participants", session(session_id))),
    // directory and agents
    suggest: (q: string, limit = 8) =>
      unwrap(client.GET("/api/v1/me/addresses/suggest", { params: { query: { q, limit } } })),
    /** Whether a mail to `address` (as a reply to `reply_to`) would be delivered, and which conversation it would join. */
    checkAddress: (address: string, reply_to?: string | null) =>
      unwrap(
        client.GET("/api/v1/me/addresses/check", {
          params: { query: reply_to ? { address, reply_to } : { address } },
        }),
      ),
    contacts: () => unwrap(client.GET("/api/v1/me/contacts")),
    agents: () => unwrap(client.GET("/api/v1/agents")),
    agentActivity: (name: string, query: ActivityQuery = {}) =>
      unwrap(client.GET("/api/v1/me/agents/{name}/activity", { params: { path: { name }, query } })),
    // admin
    users: () => unwrap(client.GET("/api/v1/admin/users")),
    createUser: (name: string, password: string, is_admin: boolean) =>
      unwrap(client.POST("/api/v1/admin/users", { body: { name, password, is_admin } })),
    resetPassword: (name: string, new_password: string) =>
      unwrap(
        client.POST("/api/v1/admin/users/{name}/password", { params: { path: { name } }, body: { new_password } }),
      ),
    setAdmin: (name: string, is_admin: boolean) =>
      unwrap(client.PATCH("/api/v1/admin/users/{name}", { params: { path: { name } }, body: { is_admin } })),
    setDefaultBudget: (name: string, default_budget: number | "unlimited") =>
      unwrap(
        client.PATCH("/api/v1/admin/agents/{name}", { params: { path: { name } }, body: { default_budget } }),
      ),
    agentKeys: () => unwrap(client.GET("/api/v1/admin/agent-keys")),
    /** `key`: register a key the agent generated itself instead of making one. */
    /** `key` may be the key itself or, as a bridge logs it, only its SHA-256 (64 hex digits). */
    issueAgentKey: (label: string, lifecycle: KeyLifecycle, expires_in?: string, key?: string) => {
      const digest = key && SHA256_HEX.test(key) ? key.toLowerCase() : null;
      return unwrap(
        client.POST("/api/v1/admin/agent-keys", {
          body: { label, lifecycle, expires_in, key: digest ? null : key || null, key_sha256: digest },
        }),
      );
    },
    revokeAgentKey: (key_id: string) =>
      unwrap(client.DELETE("/api/v1/admin/agent-keys/{key_id}", { params: { path: { key_id } } })),
    eventsUrl: () => `${baseUrl}${API_PREFIX}/events/stream`,
  };
}

export type Sdk = ReturnType<typeof createSdk>;
