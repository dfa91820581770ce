/**
 * What Hearth uses of the MCP SDK (`@modelcontextprotocol/server`), from one place. Run from the sources (tsx,
 * the tests) it is the package itself. `npm run build` bundles the package with zod into one minified file
 * (dist/vendor/mcp-server.cjs, scripts/build-vendor.mjs) and this module's compiled form reads that instead, so a
 * hub that serves MCP keeps one file's source in its heap rather than ~100 modules' (V8 keeps every module's
 * source text for good) and none of the zod modules nothing calls (its 50 locales): see docs/performance.md.
 */
export { createMcpHandler, McpServer, ProtocolError, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
