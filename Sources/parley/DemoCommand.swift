import ArgumentParser
import Foundation
import ParleyCore
import ParleyRuntime
import ServiceLifecycle

/// `parley demo`: the embedded server, the greeter and moderator bots and
/// simulated people chatting, for S seconds.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the embedded server, the greeter and moderator bots, and simulated people."
    )

    @Option(parsing: .unconditional, help: "How many simulated people.")
    var users = 6

    @Option(parsing: .unconditional, help: "How long to run, in seconds, arrivals included: the demo ends then, with its summary (default 20; with --web, until Ctrl-C).")
    var seconds: Double?

    @Flag(help: "Run on Socket.IO and print the address of the web chat: join the demo from a browser.")
    var web = false

    @Option(parsing: .unconditional, help: ArgumentHelp("People arrive spread over this many seconds (default: a third of the run).", valueName: "seconds"))
    var ramp: Double?

    @Option(parsing: .unconditional, help: "Seed for the people's choices (the same seed, the same people and lines).")
    var seed: UInt64?

    @Option(help: ArgumentHelp("The embedded server and transport the demo runs on.", valueName: "streamchat|socketio"))
    var transport: String?

    @Option(help: ArgumentHelp("Folder with greeter.lua, moderator.lua and persona.lua (default: ./Plugins, else next to the binary's checkout).", valueName: "dir"))
    var plugins: String?

    @OptionGroup var loopOptions: LoopOptions

    @OptionGroup var logging: LogOptions

    func validate() throws {
        guard (1...10_000).contains(users) else { throw ValidationError("--users must be between 1 and 10000") }
        if let seconds, !(seconds > 0 && seconds <= 86_400 * 365) { throw ValidationError("--seconds must be more than 0 and at most a year (31536000)") }
        if let ramp, !(ramp >= 0 && ramp <= runSeconds) { throw ValidationError("--ramp must be between 0 and --seconds") }
        if web, chosenTransport != "socketio" {
            throw ValidationError("--web runs on socketio (the web chat is the Socket.IO server's)")
        }
        guard EmbeddedServers.transports.contains(chosenTransport) else {
            throw ValidationError("--transport must be \(EmbeddedServers.transports.joined(separator: " or "))")
        }
        if plugins == nil { _ = try Self.findPlugins() }
        if let plugins {
            let missing = Self.demoPlugins.filter { !FileManager.default.isReadableFile(atPath: plugins + "/" + $0) }
            if !missing.isEmpty { throw ValidationError("--plugins \(plugins) has no \(missing.joined(separator: ", "))") }
        }
    }

    /// What the demo's bots run.
    static let demoPlugins = ["greeter.lua", "moderator.lua", "persona.lua"]

    func run() async throws {
        let dir = try plugins ?? Self.findPlugins()
        var options = Demo.Options(pluginsDirectory: dir)
        options.users = users
        options.seconds = runSeconds
        options.ramp = ramp ?? (web && seconds == nil ? 10 : nil)
        options.web = web
        options.transport = chosenTransport
        options.seed = seed
        if let loops = loopOptions.loops { options.loops = loops }
        options.color = isatty(STDOUT_FILENO) == 1
        let logger = logging.bootstrap()
        let demo = DemoService(demo: Demo(options: options) { line in CommandOutput.print(line) })
        try await ServiceGroup.parley([], main: demo, logger: logger).run()
    }

    /// `--transport`, else Socket.IO with `--web` (its server serves the page), else StreamChat.
    var chosenTransport: String { transport ?? (web ? "socketio" : "streamchat") }

    /// The run's length: `--seconds`, else 20 s, or a year (until Ctrl-C) with `--web`.
    var runSeconds: Double { seconds ?? (web ? 86_400 * 365 : 20) }

    /// `./Plugins`, else the checkout the binary sits in (`.build/debug/parley` →
    /// `Plugins/`), else the checkout it was built from (a copied binary).
    static func findPlugins() throws -> String {
        let fm = FileManager.default
        var candidates = [fm.currentDirectoryPath + "/Plugins"]
        // The binary itself, however it was started (from PATH, through a symlink).
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let built = URL(fileURLWithPath: #filePath).deletingLastPathComponent()   // Sources/parley/
        for c in [exe.deletingLastPathComponent().appendingPathComponent("../../../Plugins"),
                  exe.deletingLastPathComponent().appendingPathComponent("../../Plugins"),
                  built.appendingPathComponent("../../Plugins")].map(\.standardizedFileURL.path)
        where !candidates.contains(c) {
            candidates.append(c)
        }
        for c in candidates where fm.fileExists(atPath: c + "/persona.lua") { return c }
        throw ValidationError("cannot find the Plugins folder (looked in \(candidates.joined(separator: ", "))); pass --plugins DIR")
    }
}

/// The demo as the group's one service: Ctrl-C ends it early, with its summary.
struct DemoService: Service {
    let demo: Demo

    func run() async throws {
        let demo = self.demo
        _ = try await withGracefulShutdownHandler {
            try await demo.run()
        } onGracefulShutdown: {
            demo.endEarly()
        }
    }
}
