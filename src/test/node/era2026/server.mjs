#!/usr/bin/env node
// MCP 2026-07-28 era interop peer: the official TypeScript SDK v2 (@modelcontextprotocol/server
// 2.4.0) serving Streamable HTTP on 127.0.0.1.
//
// Usage: node server.mjs <port|0> <modern|dual>
//   modern  2026-07-28 only: createMcpHandler(factory, {legacy: 'reject'}); a 2025-era request
//           gets the unsupported-protocol-version error.
//   dual    2026-07-28 on the same endpoint, plus a session-based 2025-era leg (routed with
//           isLegacyRequest to a WebStandardStreamableHTTPServerTransport with sessions), so that
//           leg can send real server-to-client requests (the SDK's default 2025 fallback is
//           stateless and cannot).
//
// stdout carries exactly one line, `LISTENING <port> <url>`; everything else goes to stderr.
// Endpoint: /mcp. The same tools serve both eras: a handler returns inputRequired(...) and the SDK
// turns it into an input_required result (2026) or into real server-to-client requests (2025 leg).
//
// Tools:
//   echo {text}              the text back
//   progress {steps?}        sends `steps` (default 3) notifications/progress, then answers "done"
//   ask_name                 elicitation (form, key `user_name`): "Hello, <name>!" or "declined"
//   summarize {text}         sampling (key `summary`): "summary: <sampled text>"
//   list_roots               roots (key `roots`): the root URIs as a JSON array
//   multi_input              elicitation, sampling and roots in ONE round: JSON of the three answers
//   multi_round              three rounds, each with its own requestState: JSON of answers and states
//   slow {key}               waits until aborted or 30 s; its fate is kept under `key`
//   was_aborted {key}        "started", "aborted", "completed" or "unknown" for that key
//   add_tool {name}          registers tool <name> (answers "dynamic <name>"); tools/list_changed
//   bump                     increments demo://counter; notifications/resources/updated
//   regional_echo {region, text?}  `region` carries x-mcp-header "Region" (valid): answers
//                            "region=<region> header=<Mcp-Param-Region as received or (none)>"
//   bad_header {value}       x-mcp-header "Bad Header" (invalid: a space), so a client must drop it
// Resource: demo://counter (subscribable; text is the counter). Prompt: greet {name}.

import http from 'node:http';
import { randomUUID } from 'node:crypto';
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  inputResponse,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const log = (...args) => console.error('[era2026-server]', ...args);
console.log = (...args) => console.error(...args);
console.info = (...args) => console.error(...args);

const port = Number.parseInt(process.argv[2] ?? '0', 10);
const mode = process.argv[3] ?? 'modern';
if (!Number.isInteger(port) || port < 0 || port > 65535 || !['modern', 'dual'].includes(mode)) {
  log(`usage: server.mjs <port|0> <modern|dual> (got ${process.argv.slice(2).join(' ')})`);
  process.exit(2);
}

const SLOW_LIMIT_MS = 30_000;
const COUNTER_URI = 'demo://counter';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });

// ---------------------------------------------------------------- state shared by every instance
// createMcpHandler builds a fresh McpServer per 2026 request, so anything that must outlive one
// request lives here.

/** slow's key -> 'started' | 'aborted' | 'completed' (bounded: the oldest key is dropped past 1024). */
const slowFates = new Map();
/** Names added by add_tool, registered on every instance built afterwards. */
const dynamicTools = new Set();
let counter = 0;
/** 2025-leg sessions: id -> { server, transport, subscriptions: Set<uri> }. */
const sessions = new Map();

function remember(key, fate) {
  slowFates.set(key, fate);
  if (slowFates.size > 1024) slowFates.delete(slowFates.keys().next().value);
}

const nameSchema = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Your name' } },
  required: ['name'],
};
const askName = (message) => inputRequired.elicit({ message, requestedSchema: nameSchema });
const askSummary = (t) =>
  inputRequired.createMessage({
    messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${t}` } }],
    maxTokens: 50,
  });
const sampledText = (view) => {
  if (view.kind !== 'sampling') return undefined;
  const c = Array.isArray(view.result.content) ? view.result.content[0] : view.result.content;
  return c?.type === 'text' ? c.text : JSON.stringify(view.result.content);
};

// ---------------------------------------------------------------- the factory (both eras)

/**
 * One server instance. `ctx.requestInfo` is the HTTP request of a 2026-era exchange (one instance
 * per request), so regional_echo can report the Mcp-Param-Region header it arrived with.
 */
function buildServer(ctx) {
  const server = new McpServer(
    { name: 'mcpstdio-era2026-peer', version: '2.4.0-peer' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
      },
    },
  );
  const request = ctx?.requestInfo;

  server.registerTool('echo', { description: 'Echo text back', inputSchema: z.object({ text: z.string() }) },
    async ({ text: t }) => text(t));

  server.registerTool(
    'progress',
    {
      description: 'Send `steps` progress notifications, then answer done',
      inputSchema: z.object({ steps: z.number().int().min(0).max(100).default(3) }),
    },
    async ({ steps }, c) => {
      const token = c.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (token !== undefined) {
          await c.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}/${steps}` },
          });
        }
        await sleep(5);
      }
      return text('done');
    },
  );

  server.registerTool('ask_name', { description: 'Ask the user for a name (elicitation)' }, async (c) => {
    const view = inputResponse(c.mcpReq.inputResponses, 'user_name');
    if (view.kind === 'elicit' && view.action !== 'accept') return text('declined');
    const answer = acceptedContent(c.mcpReq.inputResponses, 'user_name');
    if (typeof answer?.name !== 'string') {
      return inputRequired({ inputRequests: { user_name: askName('What is your name?') } });
    }
    return text(`Hello, ${answer.name}!`);
  });

  server.registerTool(
    'summarize',
    { description: 'Summarize text (sampling)', inputSchema: z.object({ text: z.string() }) },
    async ({ text: t }, c) => {
      const sampled = sampledText(inputResponse(c.mcpReq.inputResponses, 'summary'));
      if (sampled === undefined) return inputRequired({ inputRequests: { summary: askSummary(t) } });
      return text(`summary: ${sampled}`);
    },
  );

  server.registerTool('list_roots', { description: "List the client's roots" }, async (c) => {
    const view = inputResponse(c.mcpReq.inputResponses, 'roots');
    if (view.kind !== 'roots') return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    return text(JSON.stringify(view.roots.map((r) => r.uri)));
  });

  server.registerTool('multi_input', { description: 'Elicitation, sampling and roots in one round' }, async (c) => {
    const responses = c.mcpReq.inputResponses;
    const name = acceptedContent(responses, 'name')?.name;
    const summary = sampledText(inputResponse(responses, 'summary'));
    const roots = inputResponse(responses, 'roots');
    if (typeof name !== 'string' || summary === undefined || roots.kind !== 'roots') {
      return inputRequired({
        inputRequests: {
          name: askName('Name, please'),
          summary: askSummary('three inputs'),
          roots: inputRequired.listRoots(),
        },
      });
    }
    return text(JSON.stringify({ name, summary, roots: roots.roots.map((r) => r.uri) }));
  });

  // Round n asks for `step<n>`; the state names the round and carries the answers so far, so a
  // retry that does not echo it byte for byte starts over (and the result shows it).
  server.registerTool('multi_round', { description: 'Three rounds, each with a new requestState' }, async (c) => {
    const raw = c.mcpReq.requestState();
    const state = typeof raw === 'string' ? JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) : { round: 0, answers: [] };
    if (state.round > 0) {
      const answer = acceptedContent(c.mcpReq.inputResponses, `step${state.round}`)?.name;
      if (typeof answer !== 'string') {
        return inputRequired({ inputRequests: { [`step${state.round}`]: askName(`Round ${state.round}: name?`) }, requestState: raw });
      }
      state.answers.push(answer);
    }
    if (state.round === 3) return text(JSON.stringify({ rounds: 3, answers: state.answers }));
    const next = { round: state.round + 1, answers: state.answers, nonce: randomUUID() };
    return inputRequired({
      inputRequests: { [`step${next.round}`]: askName(`Round ${next.round}: name?`) },
      requestState: Buffer.from(JSON.stringify(next), 'utf8').toString('base64url'),
    });
  });

  server.registerTool(
    'slow',
    { description: 'Wait until cancelled or 30 s; remembers its fate under key', inputSchema: z.object({ key: z.string() }) },
    async ({ key }, c) => {
      remember(key, 'started');
      log(`slow ${key}: started`);
      const signal = c.mcpReq.signal;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, SLOW_LIMIT_MS);
        signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
      });
      remember(key, signal.aborted ? 'aborted' : 'completed');
      log(`slow ${key}: ${slowFates.get(key)}`);
      return text(signal.aborted ? 'aborted' : 'completed');
    },
  );

  server.registerTool(
    'was_aborted',
    { description: "slow's fate for key: started, aborted, completed or unknown", inputSchema: z.object({ key: z.string() }) },
    async ({ key }) => text(slowFates.get(key) ?? 'unknown'),
  );

  server.registerTool(
    'add_tool',
    { description: 'Add a tool (tools/list_changed)', inputSchema: z.object({ name: z.string().regex(/^[a-z0-9_]{1,32}$/) }) },
    async ({ name }) => {
      if (dynamicTools.has(name) || dynamicTools.size >= 64) return text(`not added: ${name}`);
      dynamicTools.add(name);
      for (const s of sessions.values()) registerDynamic(s.server, name); // the SDK notifies each 2025 session
      if (modern) modern.notify.toolsChanged();
      return text(`added ${name}`);
    },
  );

  server.registerTool('bump', { description: 'Increment demo://counter (resources/updated)' }, async () => {
    counter++;
    if (modern) modern.notify.resourceUpdated(COUNTER_URI);
    for (const s of sessions.values()) {
      if (s.subscriptions.has(COUNTER_URI)) await s.server.server.sendResourceUpdated({ uri: COUNTER_URI }).catch(() => {});
    }
    return text(`counter=${counter}`);
  });

  server.registerTool(
    'regional_echo',
    {
      description: 'Echo with a region routed as the Mcp-Param-Region header',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, text: { type: 'string' } },
        required: ['region'],
      }),
    },
    async (args) => text(`region=${args.region} header=${request?.headers.get('mcp-param-region') ?? '(none)'}`),
  );

  server.registerTool(
    'bad_header',
    {
      description: 'An invalid x-mcp-header annotation (a space): a client must drop this tool',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { value: { type: 'string', 'x-mcp-header': 'Bad Header' } },
        required: ['value'],
      }),
    },
    async (args) => text(`bad_header called with ${args.value}`),
  );

  for (const name of dynamicTools) registerDynamic(server, name);

  server.registerResource('counter', COUNTER_URI, { description: 'A counter bump increments', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href ?? String(uri), mimeType: 'text/plain', text: String(counter) }] }));

  server.registerPrompt('greet', { description: 'Greet someone', argsSchema: z.object({ name: z.string() }) },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }));

  return server;
}

function registerDynamic(server, name) {
  server.registerTool(name, { description: `added by add_tool` }, async () => text(`dynamic ${name}`));
}

// ---------------------------------------------------------------- HTTP

const modern = createMcpHandler(buildServer, { legacy: 'reject', onerror: (e) => log('modern leg:', e?.message ?? e) });

/** The 2025-era leg of dual mode: a session per initialize, real server-to-client requests. */
async function legacyFetch(request) {
  const sid = request.headers.get('mcp-session-id');
  if (sid) {
    const s = sessions.get(sid);
    if (!s) return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, { status: 404 });
    return s.transport.handleRequest(request);
  }
  if (request.method !== 'POST') {
    return Response.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' }, id: null }, { status: 400 });
  }
  const server = buildServer({ era: 'legacy' });
  const entry = { server, transport: null, subscriptions: new Set() };
  server.server.setRequestHandler('resources/subscribe', async (req) => {
    if (entry.subscriptions.size < 64) entry.subscriptions.add(req.params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async (req) => {
    entry.subscriptions.delete(req.params.uri);
    return {};
  });
  entry.transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      log(`2025 session ${id} initialized`);
      sessions.set(id, entry);
    },
    onsessionclosed: (id) => {
      log(`2025 session ${id} closed`);
      sessions.delete(id);
    },
  });
  await server.connect(entry.transport);
  return entry.transport.handleRequest(request);
}

const fetchHandler = {
  fetch: async (request, options) => {
    if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 });
    if (mode === 'dual' && (await isLegacyRequest(request))) return legacyFetch(request);
    return modern.fetch(request, options);
  },
};
const nodeHandler = toNodeHandler(fetchHandler);

const httpServer = http.createServer((req, res) => {
  log(`${req.method} ${req.url} method=${req.headers['mcp-method'] ?? '-'} session=${req.headers['mcp-session-id'] ?? '-'}`);
  Promise.resolve(nodeHandler(req, res)).catch((e) => {
    log('request failed:', e?.stack ?? e);
    if (!res.headersSent) {
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }));
    }
  });
});

httpServer.listen(port, '127.0.0.1', () => {
  const actual = httpServer.address().port;
  log(`mode=${mode}`);
  process.stdout.write(`LISTENING ${actual} http://127.0.0.1:${actual}/mcp\n`);
});
httpServer.on('error', (e) => {
  log('listen failed:', e?.message ?? e);
  process.exit(1);
});

let stopping = false;
async function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: closing ${sessions.size} 2025 session(s)`);
  for (const { transport } of [...sessions.values()]) await transport.close().catch(() => {});
  await modern.close().catch(() => {});
  httpServer.close();
  httpServer.closeAllConnections?.();
  process.exit(0);
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.stdin.on('end', () => shutdown('stdin EOF'));
process.stdin.resume();
