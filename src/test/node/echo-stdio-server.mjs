#!/usr/bin/env node
// A minimal stdio MCP server for benchmarks: initialize, ping, tools/list and an `echo` tool,
// answered one line per message with no dependencies, so the gateway's cost is what shows.
import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });

lines.on('line', (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    return;
  }
  if (message.id === undefined || message.method === undefined) return; // notifications, responses
  const { id, method, params } = message;
  switch (method) {
    case 'initialize':
      send({ jsonrpc: '2.0', id, result: {
        protocolVersion: params?.protocolVersion ?? '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'node-echo', version: '1.0.0' },
      } });
      break;
    case 'ping':
      send({ jsonrpc: '2.0', id, result: {} });
      break;
    case 'tools/list':
      send({ jsonrpc: '2.0', id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } });
      break;
    case 'tools/call':
      send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(params?.arguments?.text ?? '') }] } });
      break;
    default:
      send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'method not found' } });
  }
});
lines.on('close', () => process.exit(0));
