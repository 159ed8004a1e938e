/**
 * Push notification configs between 1.0 and the 0.3 proto. 1.0 is flat
 * (task_id, id, url, ...); 0.3 names the config and nests a
 * PushNotificationConfig {id, url, token, authentication}.
 */
import { create } from "@bufbuild/protobuf";
import * as V03 from "../../gen/a2a/v1/a2a_pb.js";
import * as V1 from "../../gen/lf/a2a/v1/a2a_pb.js";
import { parsePushConfigName, pushConfigName, taskName } from "./names.js";

/** A 1.0 ListTaskPushNotificationConfigs request as a 0.3 one. */
export function listPushConfigsRequestToV03(r: V1.ListTaskPushNotificationConfigsRequest): V03.ListTaskPushNotificationConfigRequest {
  return create(V03.ListTaskPushNotificationConfigRequestSchema, {
    parent: taskName(r.taskId),
    pageSize: r.pageSize,
    pageToken: r.pageToken,
  });
}

/**
 * 1.0 names one push authentication scheme, 0.3 a list: the one scheme as
 * 0.3's list, empty when there is none. Used by the JSON-RPC 0.3 shapes too.
 */
export function schemesToV03(scheme: unknown): string[] {
  return typeof scheme === "string" && scheme !== "" ? [scheme] : [];
}

/** 0.3's list of push authentication schemes as 1.0's one: of several, the first is kept. */
export function schemeFromV03(schemes: unknown): string {
  return (Array.isArray(schemes) ? schemes.find((s): s is string => typeof s === "string") : undefined) ?? "";
}

/** 1.0 push authentication as 0.3's. */
export function authenticationToV03(a: V1.AuthenticationInfo): V03.AuthenticationInfo {
  return create(V03.AuthenticationInfoSchema, { schemes: schemesToV03(a.scheme), credentials: a.credentials });
}

/** 0.3 push authentication as 1.0's: its first scheme. */
export function authenticationFromV03(a: V03.AuthenticationInfo): V1.AuthenticationInfo {
  return create(V1.AuthenticationInfoSchema, { scheme: schemeFromV03(a.schemes), credentials: a.credentials });
}

/** The nested 0.3 config; the 1.0 config's tenant and task id stay behind. */
export function pushConfigToV03(c: V1.TaskPushNotificationConfig): V03.PushNotificationConfig {
  return create(V03.PushNotificationConfigSchema, {
    id: c.id,
    url: c.url,
    token: c.token,
    authentication: c.authentication && authenticationToV03(c.authentication),
  });
}

/** A 1.0 push config to create, as a 0.3 create request. */
export function createPushConfigRequestToV03(c: V1.TaskPushNotificationConfig): V03.CreateTaskPushNotificationConfigRequest {
  const parent = taskName(c.taskId);
  return create(V03.CreateTaskPushNotificationConfigRequestSchema, {
    parent,
    configId: c.id,
    config: {
      // Without an id yet (the agent assigns one), the name is the task's
      // collection of configs, `tasks/{id}/pushNotificationConfigs`: what the
      // Java SDK's client sends, and its 0.3 servers refuse the task's own
      // name (`tasks/{id}`) there as a config name. The other SDKs' servers
      // take the task from `parent` (a2a-js 1.3's HTTP+JSON from this name,
      // by its `tasks/{id}` prefix).
      name: c.id === "" ? `${parent}/pushNotificationConfigs` : pushConfigName(c.taskId, c.id),
      pushNotificationConfig: pushConfigToV03(c),
    },
  });
}

/**
 * A 0.3 config as a 1.0 one. The task and config ids come from its name;
 * `taskId` (the request's) stands in when the name is not of the usual form.
 */
export function pushConfigFromV03(c: V03.TaskPushNotificationConfig, taskId: string): V1.TaskPushNotificationConfig {
  const named = parsePushConfigName(c.name);
  const inner = c.pushNotificationConfig;
  return create(V1.TaskPushNotificationConfigSchema, {
    id: inner?.id || named?.configId || "",
    taskId: named?.taskId ?? taskId,
    url: inner?.url ?? "",
    token: inner?.token ?? "",
    authentication: inner?.authentication && authenticationFromV03(inner.authentication),
  });
}

/** A 0.3 list of push configs as a 1.0 response; `taskId` is the request's. */
export function listPushConfigsFromV03(
  r: V03.ListTaskPushNotificationConfigResponse,
  taskId: string,
): V1.ListTaskPushNotificationConfigsResponse {
  return create(V1.ListTaskPushNotificationConfigsResponseSchema, {
    configs: r.configs.map((c) => pushConfigFromV03(c, taskId)),
    nextPageToken: r.nextPageToken,
  });
}
