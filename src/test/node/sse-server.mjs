#!/usr/bin/env node
// Legacy HTTP+SSE (MCP 2024-11-05) interop peer built on the official TypeScript SDK (v1.x).
//
// Usage: node sse-server.mjs <port|0>
//   GET /sse opens a session's event stream (first event: endpoint /messages?sessionId=...),
//   POST /messages?sessionId=... carries client messages. Anything else is 404 (so a Streamable
//   HTTP initialize POST to /sse is refused, as old servers do).
//   GET /kill closes every session's stream mid-flight (for stream-loss tests).
//
// stdout carries exactly one line, `LISTENING <port>`; everything else goes to stderr.

import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import * as z from 'zod';

const log = (...args) => console.error('[sse-server]', ...args);
console.log = (...args) => console.error(...args);
console.info = (...args) => console.error(...args);

const port = Number.parseInt(process.argv[2] ?? '0', 10);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const transports = new Map();

function buildServer() {
  const server = new McpServer({ name: 'mcpstdio-ts-sse', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { description: 'Echo text back', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('slow', { description: 'Sleep ms per step with progress',
    inputSchema: { ms: z.number().min(0).default(10), steps: z.number().int().min(0).default(3) } },
    async ({ ms, steps }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await sleep(ms);
        if (progressToken !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress',
            params: { progressToken, progress: i, total: steps } });
        }
      }
      return { content: [{ type: 'text', text: 'done' }] };
    });
  server.registerTool('sample', { description: 'Ask the client to sample', inputSchema: { prompt: z.string() } },
    async ({ prompt }) => {
      const result = await server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
      const c = Array.isArray(result.content) ? result.content[0] : result.content;
      return { content: [{ type: 'text', text: c?.type === 'text' ? c.text : JSON.stringify(result.content) }] };
    });
  return server;
}

const httpServer = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  try {
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      res.on('close', () => transports.delete(transport.sessionId));
      await buildServer().connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId'));
      if (!transport) {
        res.writeHead(404).end('unknown session');
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    if (req.method === 'GET' && url.pathname === '/kill') {
      const victims = [...transports.values()];
      for (const transport of victims) await transport.close();
      res.writeHead(200).end(String(victims.length));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  } catch (e) {
    log('error', e);
    if (!res.headersSent) res.writeHead(500).end(String(e));
  }
});

httpServer.listen(port, '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${httpServer.address().port}\n`);
});
process.on('SIGTERM', () => { httpServer.close(); process.exit(0); });
