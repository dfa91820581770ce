/**
 * The safety domain: the hub's safety state and its emergency-stop service over REST (safety-routes.ts), which
 * MCP, GraphQL, the dashboard and the event bridges use too. The pure safety rules live in safety/ (controls).
 *
 * This file is the domain's entry: code outside runtime/hub/safety/ imports the domain from here only
 * (runtime/app/import-layers.test.ts checks it).
 */
export * from './safety-routes.js';
