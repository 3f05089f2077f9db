#!/usr/bin/env node
// The conformance suite's server fixture, written as a 2026-07-28 era stdio server with the
// official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0): the surface the suite's server
// scenarios call (0.2.0-alpha.12 at --requirements 2026-07-28, the 2025 tools, resources, prompts
// and completion included), with every question to the client asked the 2026 way: the handler
// returns inputRequired(...) and reads the answers from the retry's inputResponses (MRTR).
// ConformanceServer2026IT runs it behind `mcp-stdio serve`; conformance-fixture-http.mjs serves
// the same factory over HTTP, to check the fixture itself against the suite.
//
// Usage: node conformance-fixture.mjs [--legacy reject|serve]
//   reject (default)  2026-only: a 2025 `initialize` (or any opening without `_meta`) is answered
//                     with the unsupported-protocol-version error. The gateway must probe this
//                     child with `server/discover` and speak 2026 to it; a gateway that takes it
//                     for a 2025 child fails at once and visibly, instead of passing the scenarios
//                     through the SDK's 2025 shim (which would turn every input_required into real
//                     server-to-client requests, i.e. test the gateway's 2025 bridge again).
//   serve             dual-era: a 2025 opening pins the connection to the 2025 era (the SDK's
//                     shim answers input_required with real requests), for gateway tests that
//                     want a child of both eras.
//
// stdout is the JSON-RPC wire; diagnostics go to stderr. Exits on stdin EOF.
//
// requestState is signed with a fixed test key (createRequestStateCodec, HMAC-SHA256) so that any
// child of a gateway's pool verifies the state another child minted; it is bound to the method.

import {
  McpServer,
  ResourceTemplate,
  acceptedContent,
  completable,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const log = (...args) => console.error('[conformance-fixture-2026]', ...args);
console.log = (...args) => console.error(...args);
console.info = (...args) => console.error(...args);

/** A 1x1 red PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
/** A tenth of a second of 8 kHz 8-bit mono silence as a WAV file. */
const WAV = (() => {
  const samples = 800;
  const b = Buffer.alloc(44 + samples, 0x80);
  b.write('RIFF', 0, 'ascii'); b.writeUInt32LE(36 + samples, 4); b.write('WAVE', 8, 'ascii');
  b.write('fmt ', 12, 'ascii'); b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24); b.writeUInt32LE(8000, 28); b.writeUInt16LE(1, 32); b.writeUInt16LE(8, 34);
  b.write('data', 36, 'ascii'); b.writeUInt32LE(samples, 40);
  return b.toString('base64');
})();

/** The suite's JSON Schema 2020-12 tool schema (both suites' keywords). */
const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** A fixed test key (>= 32 bytes): every fixture process verifies every other's state. */
const STATE_KEY = 'mcp-stdio conformance fixture requestState key, test only';
const stateCodec = createRequestStateCodec({ key: STATE_KEY, ttlSeconds: 600, bind: (ctx) => ctx.mcpReq.method });

const text = (t) => ({ content: [{ type: 'text', text: t }] });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

const form = (message, property, type) =>
  inputRequired.elicit({
    message,
    requestedSchema: { type: 'object', properties: { [property]: { type } }, required: [property] },
  });
const sampling = (prompt, maxTokens) =>
  inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens });
const sampledText = (view) => {
  if (view.kind !== 'sampling') return undefined;
  const c = Array.isArray(view.result.content) ? view.result.content[0] : view.result.content;
  return c?.type === 'text' ? c.text : JSON.stringify(view.result.content);
};

/** Whether the triggers' tool and prompt exist now (for every instance built afterwards). */
const dynamic = { tool: false, prompt: false };
/** Set by the HTTP wrapper: createMcpHandler's notifier for its listen streams. */
const notifier = { current: undefined };

function registerDynamicTool(server) {
  return server.registerTool('test_dynamic_tool', { description: 'Added by test_trigger_tool_change' },
    async () => text('The dynamic tool answers'));
}

function registerDynamicPrompt(server) {
  return server.registerPrompt('test_dynamic_prompt', { description: 'Added by test_trigger_prompt_change' },
    () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'The dynamic prompt.' } }] }));
}

/**
 * The factory: serveStdio pins ONE instance per connection (per child process), so the list
 * triggers below change that instance, and the SDK's listen router tells the open listen streams.
 */
function buildServer() {
  const server = new McpServer(
    { name: 'mcp-stdio-conformance-fixture-2026', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
      requestState: { verify: stateCodec.verify },
    },
  );

  // ------------------------------------------------------------ the 2025 scenarios' tools

  server.registerTool('test_simple_text', { description: 'Returns a simple text response' },
    async () => text('This is a simple text response for testing.'));
  server.registerTool('test_image_content', { description: 'Returns a 1x1 red PNG image' },
    async () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }));
  server.registerTool('test_audio_content', { description: 'Returns a short silent WAV clip' },
    async () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }));
  server.registerTool('test_embedded_resource', { description: 'Returns an embedded text resource' },
    async () => ({
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    }));
  server.registerTool('test_multiple_content_types', { description: 'Returns text, image and resource content' },
    async () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
      ],
    }));
  server.registerTool('test_tool_with_logging', { description: 'Logs three info messages while running' }, async (c) => {
    for (const m of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      await c.mcpReq.log('info', m, 'conformance-fixture');
    }
    return text('Tool with logging executed successfully');
  });
  server.registerTool('test_error_handling', { description: 'Always fails with isError: true' }, async () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  server.registerTool('test_tool_with_progress', { description: 'Reports progress 0, 50 and 100 of 100' }, async (c) => {
    const token = c.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (token !== undefined) {
        await c.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress, total: 100, message: `Progress ${progress}/100` },
        });
      }
      if (progress < 100) await sleep(50);
    }
    return text('Tool with progress executed successfully');
  });
  server.registerTool('json_schema_2020_12_tool',
    { description: 'Tool with JSON Schema 2020-12 features', inputSchema: fromJsonSchema(JSON_SCHEMA_2020_12) },
    async (a) => text(`JSON Schema 2020-12 tool called with ${JSON.stringify(a)}`));
  server.registerTool('test_header_param', {
    description: 'Echoes a region that a 2026 client also sends as Mcp-Param-Region',
    inputSchema: fromJsonSchema({
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region', description: 'A region name' } },
      required: ['region'],
    }),
  }, async (a) => text(`region=${a.region}`));

  // ------------------------------------------------------------ the 2026 scenarios' tools (MRTR)

  // A1 and friends: keyed user_name; a retry without it (wrong keys, no state) asks again.
  server.registerTool('test_input_required_result_elicitation', { description: "Asks the user's name and greets them" },
    async (c) => {
      const answer = acceptedContent(c.mcpReq.inputResponses, 'user_name');
      if (typeof answer?.name !== 'string') {
        return inputRequired({ inputRequests: { user_name: form('What is your name?', 'name', 'string') } });
      }
      return text(`Hello, ${answer.name}!`);
    });

  server.registerTool('test_input_required_result_sampling', { description: 'Asks for the capital of France (sampling)' },
    async (c) => {
      const sampled = sampledText(inputResponse(c.mcpReq.inputResponses, 'capital_question'));
      if (sampled === undefined) {
        return inputRequired({ inputRequests: { capital_question: sampling('What is the capital of France?', 100) } });
      }
      return text(`Sampled: ${sampled}`);
    });

  server.registerTool('test_input_required_result_list_roots', { description: "Lists the client's roots" }, async (c) => {
    const view = inputResponse(c.mcpReq.inputResponses, 'client_roots');
    if (view.kind !== 'roots') return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    return text(`Client roots: ${JSON.stringify(view.roots.map((r) => r.uri))}`);
  });

  server.registerTool('test_input_required_result_request_state', { description: 'Confirmation with a signed requestState' },
    async (c) => {
      const state = c.mcpReq.requestState();
      const confirmed = acceptedContent(c.mcpReq.inputResponses, 'confirm');
      if (state?.step !== 'confirm' || confirmed === undefined) {
        return inputRequired({
          inputRequests: { confirm: form('Please confirm', 'ok', 'boolean') },
          requestState: await stateCodec.mint({ step: 'confirm' }, c),
        });
      }
      return text(`state-ok: confirmed=${JSON.stringify(confirmed.ok)}`);
    });

  server.registerTool('test_input_required_result_multiple_inputs', { description: 'Elicitation, sampling and roots in one round' },
    async (c) => {
      const responses = c.mcpReq.inputResponses;
      const name = acceptedContent(responses, 'user_name')?.name;
      const greeting = sampledText(inputResponse(responses, 'greeting'));
      const roots = inputResponse(responses, 'client_roots');
      if (c.mcpReq.requestState()?.step !== 'all' || typeof name !== 'string' || greeting === undefined || roots.kind !== 'roots') {
        return inputRequired({
          inputRequests: {
            user_name: form('What is your name?', 'name', 'string'),
            greeting: sampling('Generate a greeting', 50),
            client_roots: inputRequired.listRoots(),
          },
          requestState: await stateCodec.mint({ step: 'all' }, c),
        });
      }
      return text(`name=${name}, greeting=${greeting}, roots=${JSON.stringify(roots.roots.map((r) => r.uri))}`);
    });

  server.registerTool('test_input_required_result_multi_round', { description: 'Two questions in two rounds, then the answer' },
    async (c) => {
      const state = c.mcpReq.requestState();
      if (state?.round === 1) {
        const name = acceptedContent(c.mcpReq.inputResponses, 'step1')?.name;
        if (typeof name === 'string') {
          return inputRequired({
            inputRequests: { step2: form('Step 2: What is your favorite color?', 'color', 'string') },
            requestState: await stateCodec.mint({ round: 2, name }, c),
          });
        }
      } else if (state?.round === 2) {
        const color = acceptedContent(c.mcpReq.inputResponses, 'step2')?.color;
        if (typeof color === 'string') return text(`Hello ${state.name}, your favorite color is ${color}.`);
        return inputRequired({
          inputRequests: { step2: form('Step 2: What is your favorite color?', 'color', 'string') },
          requestState: await stateCodec.mint({ round: 2, name: state.name }, c),
        });
      }
      return inputRequired({
        inputRequests: { step1: form('Step 1: What is your name?', 'name', 'string') },
        requestState: await stateCodec.mint({ round: 1 }, c),
      });
    });

  server.registerTool('test_input_required_result_capabilities', { description: 'Asks only what the request declared' },
    async (c) => {
      const declared = c.mcpReq.envelope?.[CAPABILITIES_KEY] ?? {};
      const responses = c.mcpReq.inputResponses;
      const asks = {};
      const answers = [];
      if (declared.sampling) {
        const sampled = sampledText(inputResponse(responses, 'hello'));
        if (sampled === undefined) asks.hello = sampling('Say hello', 50);
        else answers.push(`sampling=${sampled}`);
      }
      if (declared.elicitation) {
        const name = acceptedContent(responses, 'user_name')?.name;
        if (typeof name !== 'string') asks.user_name = form('What is your name?', 'name', 'string');
        else answers.push(`elicitation=${name}`);
      }
      if (Object.keys(asks).length > 0) return inputRequired({ inputRequests: asks });
      return text(answers.length ? answers.join(', ') : 'The request declared neither sampling nor elicitation');
    });

  server.registerTool('test_input_required_result_tampered_state', { description: 'Confirmation with a state that resists tampering' },
    async (c) => {
      const state = c.mcpReq.requestState();
      const confirmed = acceptedContent(c.mcpReq.inputResponses, 'confirm');
      if (state?.step !== 'confirm' || confirmed === undefined) {
        return inputRequired({
          inputRequests: { confirm: form('Please confirm', 'ok', 'boolean') },
          requestState: await stateCodec.mint({ step: 'confirm' }, c),
        });
      }
      return text('Confirmation accepted');
    });

  // The SDK answers -32021 (requiredCapabilities {sampling: {}}) when the request did not declare sampling.
  server.registerTool('test_missing_capability', { description: 'Needs sampling' }, async (c) => {
    const sampled = sampledText(inputResponse(c.mcpReq.inputResponses, 'hello'));
    if (sampled === undefined) return inputRequired({ inputRequests: { hello: sampling('Say hello', 20) } });
    return text(`Sampled: ${sampled}`);
  });

  server.registerTool('test_streaming_elicitation', { description: 'Reports progress, then asks for a name' }, async (c) => {
    const name = acceptedContent(c.mcpReq.inputResponses, 'user_name')?.name;
    if (typeof name === 'string') return text(`Streaming elicitation: ${name}`);
    const token = c.mcpReq._meta?.progressToken;
    if (token !== undefined) {
      await c.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2, message: 'Asking for a name' } });
    }
    return inputRequired({ inputRequests: { user_name: form('What is your name?', 'name', 'string') } });
  });

  // The SDK sends notifications/message only when the request's _meta names a logLevel at or below it.
  server.registerTool('test_logging_tool', { description: 'Logs three info messages while running' }, async (c) => {
    for (const m of ['Logging tool started', 'Logging tool working', 'Logging tool finished']) {
      await c.mcpReq.log('info', m, 'conformance-fixture');
    }
    return text('Logging tool done');
  });

  // The triggers flip a flag shared by every instance (createMcpHandler builds one per HTTP
  // request) and change this instance's list: on stdio the pinned instance's change reaches the
  // listen streams through the SDK's router; over HTTP the wrapper's notifier tells them.
  const toggleTool = () => {
    dynamic.tool = !dynamic.tool;
    if (dynamic.tool) toolHandle = registerDynamicTool(server);
    else toolHandle?.remove();
    notifier.current?.toolsChanged();
    return text(`test_dynamic_tool ${dynamic.tool ? 'added' : 'removed'}`);
  };
  const togglePrompt = () => {
    dynamic.prompt = !dynamic.prompt;
    if (dynamic.prompt) promptHandle = registerDynamicPrompt(server);
    else promptHandle?.remove();
    notifier.current?.promptsChanged();
    return text(`test_dynamic_prompt ${dynamic.prompt ? 'added' : 'removed'}`);
  };
  server.registerTool('test_trigger_tool_change', { description: 'Adds or removes test_dynamic_tool' }, async () => toggleTool());
  server.registerTool('test_trigger_prompt_change', { description: 'Adds or removes test_dynamic_prompt' }, async () => togglePrompt());
  let toolHandle = dynamic.tool ? registerDynamicTool(server) : undefined;
  let promptHandle = dynamic.prompt ? registerDynamicPrompt(server) : undefined;

  // ------------------------------------------------------------ resources

  server.registerResource('static-text', 'test://static-text', { description: 'A static text resource', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }));
  server.registerResource('static-binary', 'test://static-binary', { description: 'A static binary resource (1x1 PNG)', mimeType: 'image/png' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }] }));
  server.registerResource('watched-resource', 'test://watched-resource', { description: 'A resource clients may subscribe to', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content' }] }));
  server.registerResource('template-data', new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'A resource template: {id} is substituted into the data', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
    }));

  // ------------------------------------------------------------ prompts and completion

  const words = ['paris', 'park', 'party', 'test', 'testing', 'tested'];
  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt without arguments' },
    () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] }));
  server.registerPrompt('test_prompt_with_arguments', {
    description: 'A prompt with two required arguments',
    argsSchema: z.object({
      arg1: completable(z.string().describe('First test argument'), (value) => words.filter((w) => w.startsWith(value ?? ''))),
      arg2: z.string().describe('Second test argument'),
    }),
  }, ({ arg1, arg2 }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
  }));
  server.registerPrompt('test_prompt_with_embedded_resource', {
    description: 'A prompt embedding a resource',
    argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
  }, ({ resourceUri }) => ({
    messages: [
      { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  }));
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with image content' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
  server.registerPrompt('test_input_required_result_prompt', { description: 'A prompt that asks for its context' }, (c) => {
    const context = acceptedContent(c.mcpReq.inputResponses, 'user_context')?.context;
    if (typeof context !== 'string') {
      return inputRequired({ inputRequests: { user_context: form('What context should the prompt use?', 'context', 'string') } });
    }
    return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${context}` } }] };
  });

  return server;
}

export { buildServer, notifier };

// Run as a stdio server unless imported (conformance-fixture-http.mjs imports the factory).
if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const legacy = args[0] === '--legacy' ? args[1] : 'reject';
  if (!['reject', 'serve'].includes(legacy) || (args.length !== 0 && args.length !== 2)) {
    log(`usage: conformance-fixture.mjs [--legacy reject|serve] (got ${args.join(' ')})`);
    process.exit(2);
  }
  log(`stdio, legacy=${legacy}`);
  serveStdio(buildServer, { legacy, onerror: (e) => log('error:', e?.message ?? e) });
}
