#!/usr/bin/env node
// MCP 2026-07-28 era host: the official TypeScript SDK v2 client (@modelcontextprotocol/client
// 2.4.0) pinned to 2026-07-28 (its default negotiation is the 2025 `legacy` one), running one
// scripted sequence and printing one JSON line per step on stdout.
//
// Usage: node client.mjs stdio <command> [args...]   spawn <command> (e.g. the relay) and speak stdio
//        node client.mjs http <url>                  speak Streamable HTTP to <url> directly
//
// Every stdout line is {"step": <name>, "ok": true|false, ...}; a failed step carries "error" and
// the sequence goes on. The last line is {"step":"done","ok":true,"failed":[names]}. Diagnostics
// go to stderr. The host declares elicitation, sampling and roots and answers them itself:
// elicitation accepts {name: "Ada"}, sampling answers "sampled: <first message text>", roots lists
// file:///tmp/era2026-root. Each step is bounded by STEP_TIMEOUT_MS.
//
// Steps: connect (era, version, serverInfo), tools/list (names), echo, progress (notifications
// counted), ask_name, summarize, list_roots, multi_input, multi_round (MRTR through the SDK's
// auto-fulfilment), regional_echo (x-mcp-header), listen (tools list_changed and resources
// updated on a subscriptions/listen stream, provoked with add_tool and bump), tools/list-after
// (the added tool is listed), prompt, resource.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const STEP_TIMEOUT_MS = 15_000;
const COUNTER_URI = 'demo://counter';
const log = (...args) => console.error('[era2026-client]', ...args);
console.log = (...args) => console.error(...args);

const [kind, ...target] = process.argv.slice(2);
if (!['stdio', 'http'].includes(kind) || target.length === 0) {
  log('usage: client.mjs stdio <command> [args...] | client.mjs http <url>');
  process.exit(2);
}

const emit = (line) => process.stdout.write(JSON.stringify(line) + '\n');
const failed = [];
const seen = { elicitations: [], samplings: 0, roots: 0, notifications: [] };

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function step(name, body) {
  try {
    const result = await withTimeout(Promise.resolve().then(body), name);
    emit({ step: name, ok: true, ...result });
  } catch (e) {
    failed.push(name);
    log(`step ${name} failed:`, e?.stack ?? e);
    emit({ step: name, ok: false, error: String(e?.message ?? e) });
  }
}

const firstText = (result) => result.content?.find((c) => c.type === 'text')?.text;

/** Resolves with the first notification `method` seen from now on (bounded by the step timeout). */
function next(method) {
  return new Promise((resolve) => {
    const check = setInterval(() => {
      const found = seen.notifications.find((n) => n.method === method && !n.taken);
      if (found) {
        found.taken = true;
        clearInterval(check);
        resolve(found);
      }
    }, 10);
  });
}

const client = new Client(
  { name: 'mcpstdio-era2026-host', version: '2.4.0-host' },
  {
    capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  },
);
client.setRequestHandler('elicitation/create', async (request) => {
  seen.elicitations.push(request.params.message);
  return { action: 'accept', content: { name: 'Ada' } };
});
client.setRequestHandler('sampling/createMessage', async (request) => {
  seen.samplings++;
  const c = request.params.messages[0]?.content;
  return { role: 'assistant', model: 'era2026-test-model', stopReason: 'endTurn',
    content: { type: 'text', text: `sampled: ${c?.type === 'text' ? c.text : '?'}` } };
});
client.setRequestHandler('roots/list', async () => {
  seen.roots++;
  return { roots: [{ uri: 'file:///tmp/era2026-root', name: 'root' }] };
});
for (const method of ['notifications/tools/list_changed', 'notifications/resources/updated']) {
  client.setNotificationHandler(method, async (n) => {
    log('notification', method, JSON.stringify(n.params ?? {}));
    seen.notifications.push({ method, params: n.params ?? {} });
  });
}

const transport = kind === 'http'
  ? new StreamableHTTPClientTransport(new URL(target[0]))
  : new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: 'inherit' });

const call = (name, args = {}, options) => client.callTool({ name, arguments: args }, options);

await step('connect', async () => {
  await client.connect(transport);
  return {
    era: client.getProtocolEra(),
    protocolVersion: client.getNegotiatedProtocolVersion(),
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
  };
});
if (failed.includes('connect')) {
  emit({ step: 'done', ok: false, failed });
  await transport.close().catch(() => {});
  process.exit(1);
}

await step('tools/list', async () => ({ tools: (await client.listTools()).tools.map((t) => t.name) }));
await step('echo', async () => ({ text: firstText(await call('echo', { text: 'héllo ✓' })) }));
await step('progress', async () => {
  const progress = [];
  const result = await call('progress', { steps: 3 }, { onprogress: (p) => progress.push(p.progress) });
  return { text: firstText(result), progress };
});
await step('ask_name', async () => {
  const before = seen.elicitations.length;
  const result = await call('ask_name');
  return { text: firstText(result), elicitations: seen.elicitations.length - before };
});
await step('summarize', async () => ({ text: firstText(await call('summarize', { text: 'a long story' })) }));
await step('list_roots', async () => ({ text: firstText(await call('list_roots')) }));
await step('multi_input', async () => ({ text: firstText(await call('multi_input')) }));
await step('multi_round', async () => {
  const before = seen.elicitations.length;
  const result = await call('multi_round');
  return { text: firstText(result), elicitations: seen.elicitations.length - before };
});
await step('regional_echo', async () => ({ text: firstText(await call('regional_echo', { region: 'eu-west-1' })) }));

const added = `late_${process.pid}`;
await step('listen', async () => {
  const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: [COUNTER_URI] });
  const listChanged = next('notifications/tools/list_changed');
  const addText = firstText(await call('add_tool', { name: added }));
  await listChanged;
  const updated = next('notifications/resources/updated');
  const bumpText = firstText(await call('bump'));
  const update = await updated;
  await subscription.close();
  return { honored: subscription.honoredFilter, addText, bumpText, updatedUri: update.params.uri };
});
await step('tools/list-after', async () => {
  const tools = (await client.listTools(undefined, { cacheMode: 'refresh' })).tools.map((t) => t.name);
  return { tools, added, listed: tools.includes(added) };
});
await step('prompt', async () => {
  const result = await client.getPrompt({ name: 'greet', arguments: { name: 'relay' } });
  return { text: result.messages[0]?.content?.text };
});
await step('resource', async () => {
  const result = await client.readResource({ uri: COUNTER_URI }, { cacheMode: 'bypass' });
  return { text: result.contents[0]?.text };
});

emit({ step: 'done', ok: failed.length === 0, failed, counts: { elicitations: seen.elicitations.length, samplings: seen.samplings, roots: seen.roots } });
await withTimeout(client.close(), 'close').catch((e) => log('close:', e?.message ?? e));
process.exit(failed.length === 0 ? 0 : 1);
