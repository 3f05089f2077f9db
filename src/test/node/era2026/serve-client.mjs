#!/usr/bin/env node
// The TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0) against `mcp-stdio serve` in
// front of the built-in demo server (a 2025-era stdio child), over Streamable HTTP, printing one
// JSON line per step on stdout: {"step": <name>, "ok": true|false, ...}, the last one
// {"step":"done","ok":true,"failed":[names]}. Diagnostics go to stderr.
//
// Usage: node serve-client.mjs <url> pin|auto
//   pin   the client pinned to 2026-07-28
//   auto  the client's own negotiation (it probes, and should pick 2026-07-28 at a dual-era serve)
//
// Steps: connect (era, version, serverInfo), tools/list, echo, add, slow (progress counted),
// ask (an elicitation the host accepts: MRTR through serve's reverse bridge) and summarize (a
// sampling request, the same way). Each step is bounded by STEP_TIMEOUT_MS.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const STEP_TIMEOUT_MS = 20_000;
const log = (...args) => console.error('[serve-client]', ...args);
console.log = (...args) => console.error(...args);

const [url, mode] = process.argv.slice(2);
if (!url || !['pin', 'auto'].includes(mode)) {
  log('usage: serve-client.mjs <url> pin|auto');
  process.exit(2);
}
const emit = (line) => process.stdout.write(JSON.stringify(line) + '\n');
const failed = [];

async function step(name, body) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name}: no answer within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([Promise.resolve().then(body), timeout]);
    emit({ step: name, ok: true, ...result });
  } catch (e) {
    failed.push(name);
    log(`step ${name} failed:`, e?.stack ?? e);
    emit({ step: name, ok: false, error: String(e?.message ?? e) });
  } finally {
    clearTimeout(timer);
  }
}

const client = new Client(
  { name: 'mcpstdio-serve-client', version: '2.4.0' },
  {
    capabilities: { elicitation: { form: {} }, sampling: {} },
    versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : 'auto' },
  },
);
client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { answer: 'yes' } }));
client.setRequestHandler('sampling/createMessage', async (request) => {
  const c = request.params.messages[0]?.content;
  return { role: 'assistant', model: 'serve-client-model', stopReason: 'endTurn',
    content: { type: 'text', text: `sampled: ${c?.type === 'text' ? c.text : '?'}` } };
});

const transport = new StreamableHTTPClientTransport(new URL(url));
const firstText = (result) => result.content?.find((c) => c.type === 'text')?.text;
const call = (name, args = {}, options) => client.callTool({ name, arguments: args }, options);

await step('connect', async () => {
  await client.connect(transport);
  return { era: client.getProtocolEra(), protocolVersion: client.getNegotiatedProtocolVersion(),
    serverInfo: client.getServerVersion() };
});
if (!failed.includes('connect')) {
  await step('tools/list', async () => ({ tools: (await client.listTools()).tools.map((t) => t.name) }));
  await step('echo', async () => ({ text: firstText(await call('echo', { text: 'héllo ✓' })) }));
  await step('add', async () => ({ text: firstText(await call('add', { a: 2, b: 40 })) }));
  await step('slow', async () => {
    const progress = [];
    const result = await call('slow', { steps: 3, delayMs: 10 }, { onprogress: (p) => progress.push(p.progress) });
    return { text: firstText(result), progress };
  });
  await step('ask', async () => ({ text: firstText(await call('ask', { question: 'Sure?' })) }));
  await step('summarize', async () => ({ text: firstText(await call('summarize', { text: 'bread' })) }));
}
emit({ step: 'done', ok: failed.length === 0, failed });
await transport.close().catch(() => {});
process.exit(failed.length === 0 ? 0 : 1);
