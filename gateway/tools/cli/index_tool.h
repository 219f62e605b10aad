#pragma once

namespace CLI {
class App;
}  // namespace CLI

namespace cfx::gateway::cli {

// Registers `cfx index recompute GRADE DATE --data-dir D [--config F]
// [--json]` under the `index` group of `app` (created when absent): it
// recomputes the fixing of GRADE on DATE from the journal alone (replaying
// every journaled command through an engine and a fresh in-memory index
// service), prints it, and compares it with the print the running
// exchange published (the index store in <data-dir>/index, opened
// read-only). Exit 0 when they are equal, 1 when they differ or the
// journal is damaged, 2 for bad arguments or when there is no such
// fixing. docs/cli.md.
void AddIndexRecompute(CLI::App& app, int* exit_code);

}  // namespace cfx::gateway::cli
