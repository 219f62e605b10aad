#pragma once

namespace cfx::gateway::cli {

// Exit codes of the cfx tool (docs/cli.md; DESIGN.md §7: non-zero with a
// one-line reason), shared by every command group.
inline constexpr int kExitOk = 0;
// The exchange refused: an order, cancel, replace or mass cancel was
// rejected, a request got a SessionReject, or the order is unknown.
inline constexpr int kExitRejected = 1;
// A command on a data dir found the journal corrupt, or a check failed
// (`journal verify`, `index recompute`).
inline constexpr int kExitFailed = 1;
// Bad arguments: unknown options, malformed values, missing credentials, or
// a data dir that is missing or not a CFX journal.
inline constexpr int kExitUsage = 2;
// Cannot connect, logon failed, or the connection was lost or corrupted.
inline constexpr int kExitConnection = 3;
// No answer in time (--timeout).
inline constexpr int kExitTimeout = 4;

}  // namespace cfx::gateway::cli
