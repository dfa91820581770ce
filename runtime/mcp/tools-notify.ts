/**
 * The MCP tool `notify` (scope `notify`): the same service as `POST /svc/v1/notify` (runtime/hub/notify/notify.ts), so a
 * notification sent by an agent over MCP or MQTT arrives on the same channels and counts against the same budget.
 */
import { type NotifyInput, type NotifyService, notifySchema } from '../hub/notify/index.js';
import { type HubTool, scopedTool } from './tool-call.js';

export function notifyTool(n: NotifyService): HubTool {
  return scopedTool<NotifyInput>(
    'notify',
    'Notify people or devices of this kitchen: audience `household` (or `role:…`, `human:{id}`, `device:{id}`), urgency info, action_needed, time_critical or emergency, a message per language. It reaches the event stream, the MQTT bus, webhooks and the dashboard; refused with rate-limited past the token’s budget.',
    notifySchema,
    (a, p) => ({ ...n.send(a, p) }),
  );
}
