#!/usr/bin/env node
// The relay as a user meets it (issue 15): a Node host speaking newline-delimited JSON-RPC on a
// fresh relay's stdio, against the TypeScript SDK's Streamable HTTP server (streamable-server.mjs,
// event-stream replies), beside the same calls made directly with the SDK's own client.
//
// Usage: node cold-host.mjs --relay <launcher> [--runs 3] [--calls 2000] [--json]
//   --relay   the relay's launcher (./mcp-stdio); it is run as `<launcher> <url>`, once per run
//   --runs    runs, each one direct then one through a fresh relay (interleaved); medians reported
//   --calls   sequential 64-byte tools/call echoes per run
//   --json    print the raw figures as JSON instead of the Markdown table
//
// Per bucket of calls (1-10, 11-100, 101-500, 501-1000, 1001-2000): the p50 latency, direct and
// through the relay, and the relay's CPU per call (utime + stime of its process tree, from /proc,
// between the bucket's first and last call). Also: start-up (spawn to initialize answered), idle
// RSS (VmRSS 500 ms after initialize) and peak RSS (VmHWM after the last call).

import { spawn } from 'node:child_process';
import { openSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const relay = opt('--relay');
const runs = Number(opt('--runs', '3'));
const calls = Number(opt('--calls', '2000'));
const asJson = args.includes('--json');
if (!relay) {
  console.error('usage: node cold-host.mjs --relay <launcher> [--runs N] [--calls N] [--json]');
  process.exit(2);
}

const BUCKETS = [[1, 10], [11, 100], [101, 500], [501, 1000], [1001, 2000], [2001, 5000]].filter(([from]) => from <= calls);
const TEXT = 'x'.repeat(64);
const CLK_TCK = 100; // Linux's USER_HZ
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function startUpstream() {
  const child = spawn(process.execPath, [join(here, 'streamable-server.mjs'), '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const lines = readline.createInterface({ input: child.stdout });
  const first = await new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error('the upstream exited with ' + code)));
  });
  const m = /^LISTENING (\d+)/.exec(first);
  if (!m) {
    throw new Error('unexpected first line from the upstream: ' + first);
  }
  return { child, url: `http://127.0.0.1:${m[1]}/mcp` };
}

/** Every pid of the tree rooted at pid (the launcher may be a script that started the JVM). */
function tree(pid) {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${all[i]}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        for (const c of readFileSync(`/proc/${all[i]}/task/${t}/children`, 'utf8').trim().split(/\s+/)) {
          if (c) all.push(Number(c));
        }
      } catch {
        // gone
      }
    }
  }
  return all;
}

/** CPU ms (user + system) of the process tree. */
function cpuMs(pid) {
  let ticks = 0;
  for (const p of tree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      // gone
    }
  }
  return (ticks * 1000) / CLK_TCK;
}

/** A /proc/<pid>/status field in MiB, summed over the tree. */
function memMiB(pid, field) {
  let kb = 0;
  for (const p of tree(pid)) {
    try {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

function bucketP50(latencies) {
  return BUCKETS.map(([from, to]) => median(latencies.slice(from - 1, Math.min(to, latencies.length))));
}

async function direct(url) {
  const client = new Client({ name: 'cold-host-direct', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const latencies = [];
  for (let i = 0; i < calls; i++) {
    const t = now();
    const r = await client.callTool({ name: 'echo', arguments: { text: TEXT } });
    latencies.push(now() - t);
    if (r.content?.[0]?.text !== TEXT) throw new Error('direct: unexpected answer ' + JSON.stringify(r));
  }
  await client.close();
  return { p50: bucketP50(latencies) };
}

async function throughRelay(url) {
  const t0 = now();
  // COLD_HOST_RELAY_STDERR names a file for the relay's stderr (its JIT or GC logs, say)
  const stderr = process.env.COLD_HOST_RELAY_STDERR ? openSync(process.env.COLD_HOST_RELAY_STDERR, 'a') : 'ignore';
  const child = spawn(relay, [url], { stdio: ['pipe', 'pipe', stderr] });
  const waiting = new Map();
  const lines = readline.createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    const msg = JSON.parse(line);
    const w = waiting.get(msg.id);
    if (w) {
      waiting.delete(msg.id);
      w(msg);
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ask = (id, method, params) => new Promise((resolve) => {
    waiting.set(id, resolve);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const init = await ask(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cold-host', version: '1.0.0' } });
  const startup = now() - t0;
  if (!init.result) throw new Error('relay: initialize failed ' + JSON.stringify(init));
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  await sleep(500);
  const idleRss = memMiB(child.pid, 'VmRSS');
  const latencies = [];
  const cpuAt = [cpuMs(child.pid)]; // before call 1, then after each bucket's last call
  let next = 0;
  for (let i = 1; i <= calls; i++) {
    const t = now();
    const r = await ask(i, 'tools/call', { name: 'echo', arguments: { text: TEXT } });
    latencies.push(now() - t);
    if (r.result?.content?.[0]?.text !== TEXT) throw new Error('relay: unexpected answer ' + JSON.stringify(r));
    if (next < BUCKETS.length && i === Math.min(BUCKETS[next][1], calls)) {
      cpuAt.push(cpuMs(child.pid));
      next++;
    }
  }
  const peakRss = memMiB(child.pid, 'VmHWM');
  child.stdin.end();
  await Promise.race([exited, sleep(10_000)]);
  child.kill('SIGKILL');
  const cpuPerCall = BUCKETS.map(([from, to], b) => (cpuAt[b + 1] - cpuAt[b]) / (Math.min(to, calls) - from + 1));
  return { startup, idleRss, peakRss, p50: bucketP50(latencies), cpuPerCall };
}

const upstream = await startUpstream();
const results = { direct: [], relay: [] };
try {
  for (let run = 0; run < runs; run++) {
    results.direct.push(await direct(upstream.url));
    results.relay.push(await throughRelay(upstream.url));
    console.error(`[cold-host] run ${run + 1} of ${runs} done`);
  }
} finally {
  upstream.child.kill();
}

if (asJson) {
  console.log(JSON.stringify({ buckets: BUCKETS, calls, runs, ...results }));
  process.exit(0);
}

const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const spread = (values) => `${fmt(Math.min(...values))}-${fmt(Math.max(...values))}`;
const col = (pick) => BUCKETS.map((_, b) => pick(b));
const header = BUCKETS.map(([from, to]) => `calls ${from}-${Math.min(to, calls)} p50`);
console.log(`${runs} runs of ${calls} sequential 64-byte echoes, direct then a fresh relay each; medians (spread)\n`);
console.log(`| | start-up | idle RSS | peak RSS | ${header.join(' | ')} |`);
console.log(`|---|---|---|---|${header.map(() => '---').join('|')}|`);
console.log(`| direct (the SDK's client) | — | — | — | ${col((b) => `${fmt(median(results.direct.map((r) => r.p50[b])))} ms`).join(' | ')} |`);
const r = results.relay;
console.log(`| relay | ${fmt(median(r.map((x) => x.startup)))} ms (${spread(r.map((x) => x.startup))}) | ${fmt(median(r.map((x) => x.idleRss)))} MiB | ${fmt(median(r.map((x) => x.peakRss)))} MiB | ${col((b) => `${fmt(median(r.map((x) => x.p50[b])))} ms (${spread(r.map((x) => x.p50[b]))})`).join(' | ')} |`);
console.log(`| relay / direct | | | | ${col((b) => `${(median(r.map((x) => x.p50[b])) / median(results.direct.map((x) => x.p50[b]))).toFixed(2)}x`).join(' | ')} |`);
console.log(`| relay CPU per call | | | | ${col((b) => `${fmt(median(r.map((x) => x.cpuPerCall[b])))} ms (${spread(r.map((x) => x.cpuPerCall[b]))})`).join(' | ')} |`);
