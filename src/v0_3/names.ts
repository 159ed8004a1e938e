/**
 * Resource names: 0.3 addresses tasks and push configs as `tasks/{id}` and
 * `tasks/{id}/pushNotificationConfigs/{id}` (1.0 and JSON-RPC 0.3 by plain ids).
 */
import { cannotExpress as cannot } from "./methods.js";

/** A task's 0.3 resource name, `tasks/{id}`; an id with a `/` cannot be one. */
export function taskName(taskId: string): string {
  if (taskId.includes("/")) throw cannot(`a task id containing "/" (${JSON.stringify(taskId)}) in a resource name`);
  return `tasks/${taskId}`;
}

/** A push config's 0.3 resource name, `tasks/{task}/pushNotificationConfigs/{id}`. */
export function pushConfigName(taskId: string, configId: string): string {
  if (configId.includes("/")) throw cannot(`a push config id containing "/" (${JSON.stringify(configId)}) in a resource name`);
  return `${taskName(taskId)}/pushNotificationConfigs/${configId}`;
}

const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]*)$/;

/** `tasks/{task}/pushNotificationConfigs/{id}` split up, or undefined when it is not one. */
export function parsePushConfigName(name: string):
  | {
      /** The task's id. */
      taskId: string;
      /** The config's id. */
      configId: string;
    }
  | undefined {
  const m = CONFIG_NAME.exec(name);
  return m ? { taskId: m[1]!, configId: m[2]! } : undefined;
}
