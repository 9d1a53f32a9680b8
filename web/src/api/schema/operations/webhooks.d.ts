// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_webhooks_create_webhook_api_v1_admin_webhooks_post } from "./webhooks/create_webhook_api_v1_admin_webhooks_post";
import type { operations_webhooks_create_webhook_api_v1_me_webhooks_post } from "./webhooks/create_webhook_api_v1_me_webhooks_post";
import type { operations_webhooks_delete_webhook_api_v1_admin_webhooks_webhook_id_delete } from "./webhooks/delete_webhook_api_v1_admin_webhooks_webhook_id_delete";
import type { operations_webhooks_delete_webhook_api_v1_me_webhooks_webhook_id_delete } from "./webhooks/delete_webhook_api_v1_me_webhooks_webhook_id_delete";
import type { operations_webhooks_enable_webhook_api_v1_admin_webhooks_webhook_id_enable_post } from "./webhooks/enable_webhook_api_v1_admin_webhooks_webhook_id_enable_post";
import type { operations_webhooks_enable_webhook_api_v1_me_webhooks_webhook_id_enable_post } from "./webhooks/enable_webhook_api_v1_me_webhooks_webhook_id_enable_post";
import type { operations_webhooks_get_webhook_api_v1_admin_webhooks_webhook_id_get } from "./webhooks/get_webhook_api_v1_admin_webhooks_webhook_id_get";
import type { operations_webhooks_get_webhook_api_v1_me_webhooks_webhook_id_get } from "./webhooks/get_webhook_api_v1_me_webhooks_webhook_id_get";
import type { operations_webhooks_list_webhook_deliveries_api_v1_admin_webhooks_webhook_id_deliveries_get } from "./webhooks/list_webhook_deliveries_api_v1_admin_webhooks_webhook_id_deliveries_get";
import type { operations_webhooks_list_webhook_deliveries_api_v1_me_webhooks_webhook_id_deliveries_get } from "./webhooks/list_webhook_deliveries_api_v1_me_webhooks_webhook_id_deliveries_get";
import type { operations_webhooks_list_webhooks_api_v1_admin_webhooks_get } from "./webhooks/list_webhooks_api_v1_admin_webhooks_get";
import type { operations_webhooks_list_webhooks_api_v1_me_webhooks_get } from "./webhooks/list_webhooks_api_v1_me_webhooks_get";
import type { operations_webhooks_replay_webhook_event_api_v1_admin_webhooks_webhook_id_replay_post } from "./webhooks/replay_webhook_event_api_v1_admin_webhooks_webhook_id_replay_post";
import type { operations_webhooks_replay_webhook_event_api_v1_me_webhooks_webhook_id_replay_post } from "./webhooks/replay_webhook_event_api_v1_me_webhooks_webhook_id_replay_post";
import type { operations_webhooks_rotate_webhook_secret_api_v1_admin_webhooks_webhook_id_rotate_secret_post } from "./webhooks/rotate_webhook_secret_api_v1_admin_webhooks_webhook_id_rotate_secret_post";
import type { operations_webhooks_rotate_webhook_secret_api_v1_me_webhooks_webhook_id_rotate_secret_post } from "./webhooks/rotate_webhook_secret_api_v1_me_webhooks_webhook_id_rotate_secret_post";

export interface operations_webhooks
    extends operations_webhooks_create_webhook_api_v1_admin_webhooks_post,
        operations_webhooks_create_webhook_api_v1_me_webhooks_post,
        operations_webhooks_delete_webhook_api_v1_admin_webhooks_webhook_id_delete,
        operations_webhooks_delete_webhook_api_v1_me_webhooks_webhook_id_delete,
        operations_webhooks_enable_webhook_api_v1_admin_webhooks_webhook_id_enable_post,
        operations_webhooks_enable_webhook_api_v1_me_webhooks_webhook_id_enable_post,
        operations_webhooks_get_webhook_api_v1_admin_webhooks_webhook_id_get,
        operations_webhooks_get_webhook_api_v1_me_webhooks_webhook_id_get,
        operations_webhooks_list_webhook_deliveries_api_v1_admin_webhooks_webhook_id_deliveries_get,
        operations_webhooks_list_webhook_deliveries_api_v1_me_webhooks_webhook_id_deliveries_get,
        operations_webhooks_list_webhooks_api_v1_admin_webhooks_get,
        operations_webhooks_list_webhooks_api_v1_me_webhooks_get,
        operations_webhooks_replay_webhook_event_api_v1_admin_webhooks_webhook_id_replay_post,
        operations_webhooks_replay_webhook_event_api_v1_me_webhooks_webhook_id_replay_post,
        operations_webhooks_rotate_webhook_secret_api_v1_admin_webhooks_webhook_id_rotate_secret_post,
        operations_webhooks_rotate_webhook_secret_api_v1_me_webhooks_webhook_id_rotate_secret_post {}
