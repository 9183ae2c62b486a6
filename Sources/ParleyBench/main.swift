import Foundation
// `make bench`: every figure is a ratio against a peer measured in the same run.
let quick = CommandLine.arguments.contains("--quick")
do {
    try LuaBench.run(quick: quick)
    try await JournalBench.run(quick: quick)
} catch {
    print("bench failed: \(error)")
    exit(1)
}
