// parley-fuzz: `parley-fuzz <target> [libFuzzer flags] [corpus dirs…]`.
//
// Built two ways from this one file (one file, because SwiftPM only compiles
// an executable without main.swift as a library when it sees `@main` in it):
//
// - `make fuzz` builds it with `-sanitize=fuzzer -DPARLEY_FUZZ`: libFuzzer is
//   linked in and owns the process. libFuzzer has its own `main`, so this
//   target has none; SwiftPM links executables with `--defsym
//   main=ParleyFuzz_main`, and `ParleyFuzz_main` below hands argv (minus the
//   target name) to `LLVMFuzzerRunDriver`.
// - A normal `swift build` has no libFuzzer: the same command line replays
//   the given files and directories once each through the target (flags are
//   ignored), failing on an input slower than 100 ms. That is how a crash
//   file is reproduced under a debugger.
import ParleyFuzzTargets

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The target's name, else the list of targets and exit status 2.
func chooseTarget(_ arguments: [String]) -> FuzzTarget {
    if arguments.count > 1, let target = FuzzTargets.named(arguments[1]) { return target }
    var usage = "usage: parley-fuzz <target> [libFuzzer flags] [corpus dirs…]\ntargets:\n"
    for target in FuzzTargets.all {
        usage += "  " + target.name.padding(12) + target.summary + "\n"
    }
    var bytes = Array(usage.utf8)
    _ = write(STDERR_FILENO, &bytes, bytes.count)
    exit(2)
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}

#if PARLEY_FUZZ

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafeRawPointer?, Int) -> CInt
) -> CInt

/// Set once before libFuzzer starts; the C callback cannot capture.
nonisolated(unsafe) var chosen: FuzzTarget?

@_cdecl("ParleyFuzz_main")
func parleyFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    guard let argv else { return 2 }
    let arguments = (0..<Int(argc)).map { argv[$0].map { String(cString: $0) } ?? "" }
    chosen = chooseTarget(arguments)
    // libFuzzer must not see the target name: it would take it for a corpus directory.
    var rest: [UnsafeMutablePointer<CChar>?] = [argv[0]] + (2..<Int(argc)).map { argv[$0] } + [nil]
    var count = CInt(rest.count - 1)
    return rest.withUnsafeMutableBufferPointer { buffer in
        var pointer = buffer.baseAddress
        return LLVMFuzzerRunDriver(&count, &pointer) { data, size in
            guard let target = chosen else { return 0 }
            let input = UnsafeRawBufferPointer(start: data, count: size)
            let ns = FuzzClock.time(target, input)
            // libFuzzer's -timeout counts whole seconds; the promise is 100 ms.
            if ns > FuzzLimits.perInputNanoseconds {
                fatalError("parley-fuzz \(target.name): slow input: \(ns / 1_000_000) ms (limit \(FuzzLimits.perInputNanoseconds / 1_000_000) ms)")
            }
            return 0
        }
    }
}

#else

@main
struct ParleyFuzzReplay {
    static func main() {
        let arguments = CommandLine.arguments
        let target = chooseTarget(arguments)
        let paths = arguments.dropFirst(2).filter { !$0.hasPrefix("-") }
        let results = FuzzReplay.run(target, files: FuzzReplay.files(in: Array(paths)))
        var slow = 0
        for result in results {
            let ms = Double(result.nanoseconds) / 1e6
            print("\(result.slow ? "SLOW" : "ok  ") \(result.path) (\(ms.formatted3) ms)")
            if result.slow { slow += 1 }
        }
        print("\(target.name): \(results.count) inputs, \(slow) slower than \(FuzzLimits.perInputNanoseconds / 1_000_000) ms")
        exit(slow == 0 ? 0 : 1)
    }
}

extension Double {
    var formatted3: String {
        let thousandths = Int((self * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

#endif
