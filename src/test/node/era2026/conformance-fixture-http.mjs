#!/usr/bin/env node
// conformance-fixture.mjs's factory served directly over Streamable HTTP (2026-07-28 only,
// createMcpHandler with legacy 'reject'), to check the fixture itself against the conformance
// suite: the suite's CLI cannot run against stdio, and the gateway is not what is tested here.
//
// Usage: node conformance-fixture-http.mjs <port|0>
// stdout carries exactly one line, `LISTENING <port> <url>`; everything else goes to stderr.
// Endpoint: http://localhost:<port>/mcp (the DNS rebinding scenario sends Host: localhost).

import http from 'node:http';
import { createMcpHandler, hostHeaderValidationResponse, localhostAllowedHostnames } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { buildServer, notifier } from './conformance-fixture.mjs';

const log = (...args) => console.error('[conformance-fixture-http]', ...args);
const port = Number.parseInt(process.argv[2] ?? '0', 10);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  log(`usage: conformance-fixture-http.mjs <port|0> (got ${process.argv.slice(2).join(' ')})`);
  process.exit(2);
}

const handler = createMcpHandler(buildServer, { legacy: 'reject', onerror: (e) => log('error:', e?.message ?? e) });
notifier.current = handler.notify;
const allowed = localhostAllowedHostnames();
const nodeHandler = toNodeHandler({
  fetch: async (request, options) => {
    if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 });
    const rejected = hostHeaderValidationResponse(request, allowed);
    if (rejected) return rejected;
    return handler.fetch(request, options);
  },
});

const server = http.createServer((req, res) => {
  Promise.resolve(nodeHandler(req, res)).catch((e) => {
    log('request failed:', e?.stack ?? e);
    if (!res.headersSent) res.writeHead(500).end();
  });
});
server.listen(port, '127.0.0.1', () => {
  const actual = server.address().port;
  process.stdout.write(`LISTENING ${actual} http://localhost:${actual}/mcp\n`);
});
const stop = () => {
  server.close();
  server.closeAllConnections?.();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
