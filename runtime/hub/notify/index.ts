/**
 * The notify domain: notifications for people and devices and their acknowledgement (notify.ts, notify-routes.ts);
 * the dashboard, MQTT and webhooks show them. Its rules are its own.
 *
 * This file is the domain's entry: code outside runtime/hub/notify/ imports the domain from here only
 * (runtime/app/import-layers.test.ts checks it).
 */

export * from './notify.js';
export * from './notify-routes.js';
