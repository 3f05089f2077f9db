#!/usr/bin/env node
// Streamable HTTP MCP interop client built on the official TypeScript SDK (v1.x), driving
// mcp-stdio's demo server through `mcp-stdio serve`.
//
// Usage: node streamable-client.mjs <url>
//
// It runs one whole session (initialize, list, tool calls with progress, elicitation and sampling
// answered by this client, a resource, a prompt, ping, session termination) and prints exactly
// one line on stdout: a JSON report of what it saw. Diagnostics go to stderr; exit 1 on failure.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const log = (...args) => console.error('[streamable-client]', ...args);
console.log = (...args) => console.error(...args);

const url = new URL(process.argv[2]);
const report = { progress: [], elicitations: [], samplings: [] };

const client = new Client(
  { name: 'ts-interop-client', version: '1.0.0' },
  { capabilities: { sampling: {}, elicitation: {} } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  report.elicitations.push(request.params.message);
  return { action: 'accept', content: { answer: 'Lin' } };
});
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  report.samplings.push(request.params.messages[0].content.text);
  return { role: 'assistant', content: { type: 'text', text: 'ts summary' }, model: 'ts-model', stopReason: 'endTurn' };
});

const text = (result) => result.content[0].text;

try {
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  report.sessionId = transport.sessionId;
  report.server = client.getServerVersion().name;
  report.tools = (await client.listTools()).tools.map((t) => t.name);
  report.echo = text(await client.callTool({ name: 'echo', arguments: { text: 'from typescript' } }));
  report.slow = text(await client.callTool({ name: 'slow', arguments: { steps: 3, delayMs: 20 } }, undefined, {
    onprogress: (p) => report.progress.push(p.progress),
  }));
  report.ask = text(await client.callTool({ name: 'ask', arguments: { question: 'Your name?' } }));
  report.summarize = text(await client.callTool({ name: 'summarize', arguments: { text: 'lots of words' } }));
  report.resource = (await client.readResource({ uri: 'demo://readme' })).contents[0].text;
  report.prompt = (await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })).messages[0].content.text;
  await client.ping();
  await transport.terminateSession();
  report.terminated = transport.sessionId === undefined;
  await client.close();
  process.stdout.write(JSON.stringify(report) + '\n');
  process.exit(0);
} catch (e) {
  log('failed:', e && e.stack ? e.stack : e);
  process.exit(1);
}
