// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.

/** The bounds the gateway declares: on each schema's properties, and on each operation's parameters. */
export const limits = {
  schemas: {
    "AgentKeyBody": {
      "key": {"maxLength":512},
      "key_sha256": {"maxLength":64},
    },
    "AgentSettings": {
      "default_budget": {"maximum":1000000,"minimum":1},
    },
    "Allowlist": {
      "entries": {"maxItems":200},
    },
    "AllowlistChange": {
      "entries": {"maxItems":200},
    },
    "Code": {
      "code": {"maxLength":20},
    },
    "DecideBody": {
      "decision": {"minLength":1},
    },
    "DraftInput": {
      "budget": {"maximum":1000000,"minimum":1},
      "reply_to": {"maxLength":64},
      "session_alias": {"maxLength":64},
      "subject": {"maxLength":998},
    },
    "Filing": {
      "folder_id": {"maxLength":64,"minLength":1},
    },
    "FolderName": {
      "name": {"maxLength":1024,"minLength":1},
    },
    "ForwardRequest": {
      "subject": {"maxLength":998},
    },
    "LoginBody": {
      "password": {"maxLength":1024},
      "username": {"maxLength":256},
    },
    "NewAddress": {
      "address": {"maxLength":254,"minLength":3},
    },
    "NewUser": {
      "name": {"maxLength":64},
      "password": {"maxLength":1024,"minLength":8},
    },
    "PasswordChange": {
      "current_password": {"maxLength":1024},
      "new_password": {"maxLength":1024,"minLength":8},
    },
    "PasswordReset": {
      "new_password": {"maxLength":1024,"minLength":8},
    },
    "PermissionRequest": {
      "cc": {"maxItems":50},
      "question": {"maxLength":998,"minLength":1},
    },
    "PushKeys": {
      "auth": {"maxLength":32,"minLength":16},
      "p256dh": {"maxLength":100,"minLength":80},
    },
    "RegisterBody": {
      "platform": {"maxLength":64},
      "workspaces": {"minItems":1},
    },
    "ReplayBody": {
      "event_id": {"maximum":9223372036854776000,"minimum":1},
    },
    "SendRequest": {
      "attachment_ids": {"maxItems":50},
      "budget": {"maximum":1000000,"minimum":1},
      "session_alias": {"maxLength":64},
      "session_id": {"maxLength":64},
      "subject": {"maxLength":998},
    },
    "SessionChange": {
      "budget_limit": {"maximum":1000000,"minimum":1},
      "reason": {"maxLength":500},
      "session_alias": {"maxLength":64},
      "subject": {"maxLength":998},
    },
    "SubscriptionBody": {
      "endpoint": {"maxLength":2048,"minLength":1},
    },
    "WebhookBody": {
      "description": {"maxLength":200},
      "events": {"maxItems":5,"minItems":1},
      "url": {"maxLength":2048,"minLength":1},
    },
    "Workspace": {
      "name": {"maxLength":256,"minLength":1},
      "path": {"maxLength":1024},
    },
  },
  parameters: {
    "GET /api/v1/addresses/check": {
      "address": {"maxLength":1200},
      "reply_to": {"maxLength":64},
    },
    "GET /api/v1/addresses/suggest": {
      "limit": {"maximum":100,"minimum":1},
      "q": {"maxLength":1200},
    },
    "GET /api/v1/admin/webhooks/{webhook_id}/deliveries": {
      "limit": {"maximum":100,"minimum":1},
    },
    "GET /api/v1/contacts": {
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/events/stream": {
      "after": {"maximum":9223372036854776000,"minimum":0},
    },
    "GET /api/v1/mail/{mail_id}/tree": {
      "cursor": {"maxLength":4096},
      "limit": {"maximum":500,"minimum":1},
    },
    "GET /api/v1/mail/inbox": {
      "folder_id": {"maxLength":64},
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/mail/inbox/rows": {
      "folder_id": {"maxLength":64},
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "POST /api/v1/mail/send": {
      "Idempotency-Key": {"maxLength":255,"minLength":1},
    },
    "GET /api/v1/mail/sent": {
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/mail/sent/rows": {
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/me/addresses/check": {
      "address": {"maxLength":1200},
      "reply_to": {"maxLength":64},
    },
    "GET /api/v1/me/addresses/suggest": {
      "limit": {"maximum":100,"minimum":1},
      "q": {"maxLength":1200},
    },
    "GET /api/v1/me/agents/{name}/activity": {
      "limit": {"maximum":100,"minimum":1},
      "name": {"maxLength":64},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/me/contacts": {
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/me/drafts": {
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/me/mail/{mail_id}/tree": {
      "cursor": {"maxLength":4096},
      "limit": {"maximum":500,"minimum":1},
    },
    "GET /api/v1/me/mail/inbox": {
      "folder_id": {"maxLength":64},
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/me/mail/inbox/rows": {
      "folder_id": {"maxLength":64},
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "POST /api/v1/me/mail/send": {
      "Idempotency-Key": {"maxLength":255,"minLength":1},
    },
    "GET /api/v1/me/mail/sent": {
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/me/mail/sent/rows": {
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/me/permissions": {
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
    },
    "GET /api/v1/me/search": {
      "limit": {"maximum":100,"minimum":1},
      "offset": {"maximum":10000,"minimum":0},
      "q": {"maxLength":500},
    },
    "GET /api/v1/me/sessions": {
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
      "participant": {"maxLength":64},
    },
    "GET /api/v1/me/webhooks/{webhook_id}/deliveries": {
      "limit": {"maximum":100,"minimum":1},
    },
    "POST /api/v1/permission/request": {
      "Idempotency-Key": {"maxLength":255,"minLength":1},
    },
    "GET /api/v1/search": {
      "limit": {"maximum":100,"minimum":1},
      "offset": {"maximum":10000,"minimum":0},
      "q": {"maxLength":500},
    },
    "GET /api/v1/sessions": {
      "limit": {"maximum":500,"minimum":1},
      "offset": {"maximum":2147483647,"minimum":0},
      "participant": {"maxLength":64},
    },
  },
} as const;
