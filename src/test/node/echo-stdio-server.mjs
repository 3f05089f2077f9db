#!/usr/bin/env node
// A minimal stdio MCP server for benchmarks: initialize, ping, tools/list and two tools, answered
// one line per message with no dependencies, so the gateway's cost is what shows.
//   echo {text}             answers the text at once
//   slow {text, ms, serial} answers the text after ms milliseconds (default 20); with serial, calls
//                           are served one at a time (each waits for the one before it), as a
//                           server that handles one request at a time does; without, they overlap
// A call whose _meta carries a progressToken gets one notifications/progress before its answer.
// Every other request (server/discover included) is answered -32601 at once, as a 2025-era server
// answers a method it does not know, so serve's pool probe costs no timeout.
import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
let serialTail = Promise.resolve(); // the last queued serial call

const TOOLS = [
  { name: 'echo', inputSchema: { type: 'object' } },
  { name: 'slow', inputSchema: { type: 'object' } },
];

function answerCall(id, params) {
  const token = params?._meta?.progressToken;
  if (token !== undefined) {
    send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 1 } });
  }
  send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(params?.arguments?.text ?? '') }] } });
}

function slowCall(id, params) {
  const ms = Number(params?.arguments?.ms ?? 20);
  const run = () => new Promise((resolve) => setTimeout(() => { answerCall(id, params); resolve(); }, ms));
  if (params?.arguments?.serial) {
    serialTail = serialTail.then(run);
  } else {
    run();
  }
}

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
      send({ jsonrpc: '2.0', id, result: { tools: TOOLS } });
      break;
    case 'tools/call':
      if (params?.name === 'slow') {
        slowCall(id, params);
      } else {
        answerCall(id, params);
      }
      break;
    default:
      send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'method not found' } });
  }
});
lines.on('close', () => process.exit(0));
