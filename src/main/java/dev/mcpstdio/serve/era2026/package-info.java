/**
 * Serve's 2026-era path, in one place: the endpoint ({@link
 * dev.mcpstdio.serve.era2026.Era2026Endpoint}: one stateless request per POST), the pool of children
 * keyed by principal ({@link dev.mcpstdio.serve.era2026.ChildPool}, {@link
 * dev.mcpstdio.serve.era2026.PooledChild}), and the pure rules they apply (mcp-stdio.md 4.6-4.9; spec.md section 5): which era a
 * POST belongs to ({@link dev.mcpstdio.serve.era2026.EraClassifier}), the validation ladder
 * ({@link dev.mcpstdio.serve.era2026.ValidationLadder}), id and progress-token remapping ({@link
 * dev.mcpstdio.serve.era2026.IdSpace}), result stamping ({@link
 * dev.mcpstdio.serve.era2026.ResultStamp}), {@code server/discover} built from a 2025 child's
 * {@code InitializeResult} ({@link dev.mcpstdio.serve.era2026.Discover}), {@code Accept} media
 * ranges ({@link dev.mcpstdio.serve.era2026.AcceptRanges}), listen filters and frames ({@link
 * dev.mcpstdio.serve.era2026.ListenFilter}), and the MRTR bridge's signed {@code requestState}
 * ({@link dev.mcpstdio.serve.era2026.RequestStateCodec}) with its single-use registry ({@link
 * dev.mcpstdio.serve.era2026.ParkedRounds}).
 *
 * <p>The rules do no HTTP, no Jetty, no processes and no logging ({@code Era2026PackagePurityTest}): inputs are a message's bytes and spans,
 * header values as lists of field lines ({@link dev.mcpstdio.serve.era2026.HeaderLines}) and
 * strings; outputs are bytes, records and sealed verdicts. The few classes with state ({@link
 * dev.mcpstdio.serve.era2026.IdSpace}, {@link dev.mcpstdio.serve.era2026.ParkedRounds}) are bounded
 * maps with their bound documented, and take their clock as an argument. Edits of a message splice
 * bytes into it: every byte the rule does not name stays as the child or client wrote it.
 */
package dev.mcpstdio.serve.era2026;
