#!/usr/bin/env node
// A 2025-era stdio MCP server on the official TypeScript SDK v1 (McpServer + StdioServerTransport),
// the child at the far end of Sandwich2026IT: a 2025 host -> the relay (2026 era) -> serve (2026
// era, a pool of these children) -> this. Its questions to its client are real 2025 server-to-client
// requests (serve's reverse MRTR bridge turns them into input_required answers).
//
// Usage: node sandwich-stdio-server.mjs <state folder>
//   serve's pool runs several of these for one principal (a call that may ask its client holds a
//   child of its own), so what must outlive one process lives in the state folder, shared by all:
//   slow's fates (one file per key) and the tools add_tool added (one file per name; every child
//   registers the ones it does not know yet before it handles a message, without a list_changed:
//   only the child whose add_tool ran announces the change).
//
// stdout is the wire and nothing else; logs go to stderr, each line "[sandwich-child PID] ...".
// It does not answer server/discover (the SDK answers -32601), so serve takes it for 2025-era.
// It logs the id of each slow call ("slow KEY: started as request ID") and of each
// notifications/cancelled it gets ("cancelled: request ID"), so a test can match the two.
//
// Tools:
//   echo {text}          the text back
//   progress {steps}     `steps` notifications/progress under the request's progressToken, then "done"
//   ask_name             elicitation (form): "Hello, <name>!" or "declined"
//   summarize {text}     sampling: "summary: <sampled text>"
//   list_roots           roots: the root URIs as a JSON array
//   multi_input          elicitation, sampling and roots at once (Promise.all): JSON of the three
//   slow {key}           waits until cancelled (extra.signal) or 30 s; its fate kept under key
//   was_aborted {key}    "started", "aborted", "completed" or "unknown" for that key
//   add_tool {name}      registers tool <name> (answers "dynamic <name>"): notifications/tools/list_changed

import fs from 'node:fs';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

const log = (...args) => console.error(`[sandwich-child ${process.pid}]`, ...args);
console.log = (...args) => console.error(...args);
console.info = (...args) => console.error(...args);

const stateDir = process.argv[2];
if (!stateDir || !fs.statSync(stateDir, { throwIfNoEntry: false })?.isDirectory()) {
  log(`usage: sandwich-stdio-server.mjs <state folder> (got ${process.argv.slice(2).join(' ')})`);
  process.exit(2);
}
const fatesDir = path.join(stateDir, 'fates');
const toolsDir = path.join(stateDir, 'tools');
fs.mkdirSync(fatesDir, { recursive: true });
fs.mkdirSync(toolsDir, { recursive: true });

const SLOW_LIMIT_MS = 30_000;
const NAME = /^[a-z0-9_]{1,32}$/;
const KEY = /^[A-Za-z0-9_-]{1,80}$/;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });

/** Writes a fate atomically (a reader never sees half a file). */
function remember(key, fate) {
  const file = path.join(fatesDir, key);
  fs.writeFileSync(`${file}.${process.pid}.tmp`, fate);
  fs.renameSync(`${file}.${process.pid}.tmp`, file);
}

function fateOf(key) {
  try {
    return fs.readFileSync(path.join(fatesDir, key), 'utf8');
  } catch {
    return 'unknown';
  }
}

const server = new McpServer(
  { name: 'mcpstdio-sandwich-child', version: '1.32.2-child' },
  { capabilities: { tools: { listChanged: true } } },
);
const low = server.server;

server.registerTool('echo', { description: 'Echo text back', inputSchema: { text: z.string() } },
  async ({ text: t }) => text(t));

server.registerTool(
  'progress',
  { description: 'Send `steps` progress notifications, then answer done', inputSchema: { steps: z.number().int().min(0).max(100) } },
  async ({ steps }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps, message: `step ${i}/${steps}` },
        });
      }
      await sleep(5);
    }
    return text('done');
  },
);

const nameSchema = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Your name' } },
  required: ['name'],
};
const askName = (message) => low.elicitInput({ mode: 'form', message, requestedSchema: nameSchema });
const askSummary = (t) => low.createMessage({
  messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${t}` } }],
  maxTokens: 50,
});
const sampledText = (result) => {
  const c = Array.isArray(result.content) ? result.content[0] : result.content;
  return c?.type === 'text' ? c.text : JSON.stringify(result.content);
};

server.registerTool('ask_name', { description: 'Ask the user for a name (elicitation)' }, async () => {
  const answer = await askName('What is your name?');
  if (answer.action !== 'accept' || typeof answer.content?.name !== 'string') return text('declined');
  return text(`Hello, ${answer.content.name}!`);
});

server.registerTool('summarize', { description: 'Summarize text (sampling)', inputSchema: { text: z.string() } },
  async ({ text: t }) => text(`summary: ${sampledText(await askSummary(t))}`));

server.registerTool('list_roots', { description: "List the client's roots" }, async () => {
  const { roots } = await low.listRoots();
  return text(JSON.stringify(roots.map((r) => r.uri)));
});

// the three questions leave in one burst, so serve's bridge asks them in one round
server.registerTool('multi_input', { description: 'Elicitation, sampling and roots at once' }, async () => {
  const [elicited, sampled, listed] = await Promise.all([askName('Name, please'), askSummary('three inputs'), low.listRoots()]);
  return text(JSON.stringify({
    name: elicited.content?.name ?? null,
    summary: sampledText(sampled),
    roots: listed.roots.map((r) => r.uri),
  }));
});

server.registerTool(
  'slow',
  { description: 'Wait until cancelled or 30 s; remembers its fate under key', inputSchema: { key: z.string().regex(KEY) } },
  async ({ key }, extra) => {
    remember(key, 'started');
    log(`slow ${key}: started as request ${JSON.stringify(extra.requestId)}`);
    const signal = extra.signal;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, SLOW_LIMIT_MS);
      signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
    });
    const fate = signal.aborted ? 'aborted' : 'completed';
    remember(key, fate);
    log(`slow ${key}: ${fate}`);
    return text(fate);
  },
);

server.registerTool(
  'was_aborted',
  { description: "slow's fate for key: started, aborted, completed or unknown", inputSchema: { key: z.string().regex(KEY) } },
  async ({ key }) => text(fateOf(key)),
);

const known = new Set();

function registerDynamic(name) {
  known.add(name);
  server.registerTool(name, { description: 'added by add_tool' }, async () => text(`dynamic ${name}`));
}

server.registerTool(
  'add_tool',
  { description: 'Add a tool (tools/list_changed)', inputSchema: { name: z.string().regex(NAME) } },
  async ({ name }) => {
    syncTools();
    if (known.has(name) || known.size >= 64) return text(`not added: ${name}`);
    fs.writeFileSync(path.join(toolsDir, name), '');
    registerDynamic(name); // the SDK sends notifications/tools/list_changed
    log(`added tool ${name}`);
    return text(`added ${name}`);
  },
);

/** Registers the tools another child added, without announcing them (that child did). */
function syncTools() {
  for (const name of fs.readdirSync(toolsDir)) {
    if (!known.has(name) && NAME.test(name)) {
      server.sendToolListChanged = () => {};
      try {
        registerDynamic(name);
      } finally {
        delete server.sendToolListChanged; // the prototype's again
      }
    }
  }
}

const transport = new StdioServerTransport();
await server.connect(transport);
const handle = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message.method === 'tools/list' || message.method === 'tools/call') syncTools();
  if (message.method === 'notifications/cancelled') log(`cancelled: request ${JSON.stringify(message.params?.requestId)}`);
  handle(message, extra);
};
log(`ready (state ${stateDir})`);
process.stdin.on('end', () => {
  log('stdin closed; exiting');
  process.exit(0);
});
