/**
 * MCP protocol constants and the 2026 era's pure wire rules, shared by relay and serve.
 *
 * <p>Everything here is a pure function of its arguments: no I/O, no clock, no logging, no state.
 * Inputs taken from a message are its bytes and a {@link dev.mcpstdio.jsonrpc.JsonSpan}, read with
 * {@link dev.mcpstdio.jsonrpc.Json}; nothing is bound to objects or re-serialised. The package
 * depends only on {@code dev.mcpstdio.jsonrpc}, Jackson core and the JDK (checked by
 * {@code ProtocolPackageDependenciesTest}); {@code relay} and {@code serve} sit above it.
 *
 * <p>Sources cited in the classes: the MCP specification digest ({@code spec.md} section 5) and the
 * behaviour inventory of the Python tool ({@code mcp-stdio.md} section 2.11), which this project
 * follows where the specification leaves a choice.
 */
package dev.mcpstdio.protocol;
