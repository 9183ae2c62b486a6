import Foundation
// `make bench`: every figure is a ratio against a peer measured in the same run.
let quick = CommandLine.arguments.contains("--quick")
// `--vm-loop N`: only the Parley VM path, N events (for instruction counting
// under callgrind, which is repeatable where timings on a busy machine are not).
if let i = CommandLine.arguments.firstIndex(of: "--vm-loop"), i + 1 < CommandLine.arguments.count,
   let n = Int(CommandLine.arguments[i + 1]) {
    do { try LuaBench.vmLoop(n) } catch { print("bench failed: \(error)"); exit(1) }
    exit(0)
}
do {
    try LuaBench.run(quick: quick)
    try await JournalBench.run(quick: quick)
} catch {
    print("bench failed: \(error)")
    exit(1)
}
