#!/usr/bin/env node
// Streamable HTTP MCP interop peer built on the official TypeScript SDK (v1.x).
//
// Usage: node streamable-server.mjs <port|0> [sse|json] [resumable] [paged]
//   argv[2]  port on 127.0.0.1 (0 = ephemeral)
//   argv[3]  'json' -> enableJsonResponse: true; anything else -> SSE responses (default)
//   extra flags (any order after argv[3]):
//     resumable  attach the SDK's InMemoryEventStore (SSE events get `id:` fields,
//                priming events, Last-Event-ID replay)
//     paged      paginate tools/list, 3 tools per page (McpServer has no native tool paging)
//
// stdout carries exactly one line, `LISTENING <port>`; everything else goes to stderr.
// Endpoint: /mcp (POST, GET = standalone SSE stream, DELETE = end session).

import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import {
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

// Keep stdout clean: only the LISTENING line may go there.
const log = (...args) => console.error('[streamable-server]', ...args);
console.log = (...args) => console.error(...args);
console.info = (...args) => console.error(...args);

const port = Number.parseInt(process.argv[2] ?? '0', 10);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  log(`bad port: ${process.argv[2]}`);
  process.exit(2);
}
const jsonMode = process.argv[3] === 'json';
const flags = new Set(process.argv.slice(4));
const resumable = flags.has('resumable');
const paged = flags.has('paged');
const PAGE_SIZE = 3;
const MAX_BODY = 16 * 1024 * 1024;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Options for a server->client message that belongs to the current tools/call.
 * In SSE mode it rides on the POST's SSE response stream. In JSON mode the SDK
 * silently drops request-related messages (a JSON response cannot carry them),
 * so there we send them unrelated, i.e. on the standalone GET stream.
 */
const related = (extra) => (jsonMode ? {} : { relatedRequestId: extra.requestId });

function buildServer() {
  const server = new McpServer(
    { name: 'mcpstdio-ts-interop', version: '1.0.0' },
    { capabilities: { logging: {} } },
  );
  const low = server.server;

  server.registerTool(
    'echo',
    { description: 'Echo text back', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );

  server.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );

  server.registerTool(
    'slow',
    {
      description: 'Sleep ms per step, sending notifications/progress for each step',
      inputSchema: { ms: z.number().min(0).default(10), steps: z.number().int().min(0).default(3) },
    },
    async ({ ms, steps }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await sleep(ms);
        if (extra.signal.aborted) throw new McpError(ErrorCode.RequestTimeout, 'cancelled');
        if (progressToken !== undefined) {
          const note = {
            method: 'notifications/progress',
            params: { progressToken, progress: i, total: steps, message: `step ${i}/${steps}` },
          };
          if (jsonMode) await low.notification(note);
          else await extra.sendNotification(note);
        }
      }
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );

  server.registerTool(
    'sample',
    { description: 'Ask the client to sample (sampling/createMessage)', inputSchema: { prompt: z.string() } },
    async ({ prompt }, extra) => {
      const result = await low.createMessage(
        {
          messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
          maxTokens: 100,
        },
        { ...related(extra), signal: extra.signal },
      );
      const c = Array.isArray(result.content) ? result.content[0] : result.content;
      const text = c?.type === 'text' ? c.text : JSON.stringify(result.content);
      return { content: [{ type: 'text', text }] };
    },
  );

  server.registerTool(
    'elicit',
    { description: 'Ask the client for a form elicitation with boolean `ok`', inputSchema: {} },
    async (_args, extra) => {
      const result = await low.elicitInput(
        {
          mode: 'form',
          message: 'Is it ok?',
          requestedSchema: {
            type: 'object',
            properties: { ok: { type: 'boolean', title: 'OK?' } },
            required: ['ok'],
          },
        },
        { ...related(extra), signal: extra.signal },
      );
      return {
        content: [{ type: 'text', text: JSON.stringify({ action: result.action, content: result.content ?? null }) }],
      };
    },
  );

  server.registerTool(
    'big',
    { description: 'Return `bytes` x characters', inputSchema: { bytes: z.number().int().min(0) } },
    async ({ bytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }),
  );

  server.registerTool(
    'notify_later',
    {
      description: 'After delayMs, send a notifications/message on the standalone GET stream, then return ok',
      inputSchema: { delayMs: z.number().min(0).default(50), text: z.string().default('later') },
    },
    async ({ delayMs, text }, extra) => {
      await sleep(delayMs);
      // No relatedRequestId -> the transport routes it to the standalone GET SSE stream
      // (dropped if none is open, unless 'resumable' stores it for replay).
      await low.sendLoggingMessage({ level: 'info', logger: 'notify_later', data: text }, extra.sessionId);
      return { content: [{ type: 'text', text: 'ok' }] };
    },
  );

  server.registerResource(
    'hello',
    'test://hello',
    { description: 'Greeting resource', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello' }] }),
  );

  server.registerPrompt(
    'greet',
    { description: 'Greet someone', argsSchema: { name: z.string() } },
    ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }],
    }),
  );

  if (paged) {
    // McpServer always returns every tool in one page; wrap its handler to paginate.
    // Uses the SDK's private handler map (test fixture only).
    const original = low._requestHandlers?.get('tools/list');
    if (typeof original !== 'function') {
      log('paged: cannot find McpServer tools/list handler; serving one page');
    } else {
      low.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
        const all = (await original(request, extra)).tools;
        const cursor = request.params?.cursor;
        let offset = 0;
        if (cursor !== undefined) {
          const m = /^off:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
          if (!m || Number(m[1]) > all.length) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
          offset = Number(m[1]);
        }
        const next = offset + PAGE_SIZE;
        return {
          tools: all.slice(offset, next),
          ...(next < all.length ? { nextCursor: Buffer.from(`off:${next}`).toString('base64url') } : {}),
        };
      });
    }
  }

  return server;
}

/** sessionId -> { transport, server } */
const sessions = new Map();

function sendJsonError(res, status, code, message) {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(Object.assign(new Error('body too large'), { tooLarge: true }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function handle(req, res) {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== '/mcp') {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
    return;
  }
  const sid = req.headers['mcp-session-id'];
  log(`${req.method} /mcp session=${sid ?? '-'}`);

  if (req.method === 'POST') {
    let body;
    try {
      const raw = await readBody(req);
      body = JSON.parse(raw);
    } catch (e) {
      if (e?.tooLarge) return sendJsonError(res, 413, -32000, 'Payload too large');
      return sendJsonError(res, 400, -32700, 'Parse error: Invalid JSON');
    }
    if (sid !== undefined) {
      const s = sessions.get(sid);
      if (!s) return sendJsonError(res, 404, -32001, 'Session not found');
      return s.transport.handleRequest(req, res, body);
    }
    if (!isInitializeRequest(body)) {
      return sendJsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    }
    const server = buildServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: jsonMode,
      ...(resumable ? { eventStore: new InMemoryEventStore() } : {}),
      onsessioninitialized: (id) => {
        log(`session initialized ${id}`);
        sessions.set(id, { transport, server });
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && sessions.delete(id)) log(`session closed ${id}`);
    };
    transport.onerror = (e) => log('transport error:', e?.message ?? e);
    await server.connect(transport);
    return transport.handleRequest(req, res, body);
  }

  if (req.method === 'GET' || req.method === 'DELETE') {
    if (sid === undefined) return sendJsonError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const s = sessions.get(sid);
    if (!s) return sendJsonError(res, 404, -32001, 'Session not found');
    return s.transport.handleRequest(req, res);
  }

  res.writeHead(405, { Allow: 'GET, POST, DELETE', 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
}

const httpServer = http.createServer((req, res) => {
  handle(req, res).catch((e) => {
    log('request failed:', e?.stack ?? e);
    sendJsonError(res, 500, -32603, 'Internal server error');
  });
});

httpServer.listen(port, '127.0.0.1', () => {
  const actual = httpServer.address().port;
  log(`mode=${jsonMode ? 'json' : 'sse'} resumable=${resumable} paged=${paged}`);
  process.stdout.write(`LISTENING ${actual}\n`);
});
httpServer.on('error', (e) => {
  log('listen failed:', e?.message ?? e);
  process.exit(1);
});

let stopping = false;
async function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: closing ${sessions.size} session(s)`);
  for (const { transport } of [...sessions.values()]) {
    await transport.close().catch(() => {});
  }
  httpServer.close();
  httpServer.closeAllConnections?.();
  process.exit(0);
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
