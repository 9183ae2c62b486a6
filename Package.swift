// swift-tools-version:6.1
import PackageDescription

// Parley: a headless chat-bot runtime with sandboxed Lua 5.4 plugins.
//
// Module map (each has one job):
//   CLua            system library: Debian's liblua5.4 headers
//   CParleyLua      C side of the sandbox: hook, allocator, trampolines, pattern matcher
//   ParleyLua       Swift VM wrapper: one sandboxed lua_State per plugin
//   ParleyConfig    TOML parser and config readers with file:line errors
//   CParleyJournal  CRC32C and thread names for the journal (and the bot loops)
//   ParleyJournal   crash-safe append-only file journal
//   ParleyCore      the vocabulary: events, actions, the Transport protocols, the transport registry
//   ParleyStore     what a bot keeps (state, history, outbox, timers, cursors), in memory or in the journal
//   ParleyWire      the wire codecs, NIO-free so they can be fuzzed (JSON, StreamChat, Engine.IO/Socket.IO, STOMP, REST)
//   ParleyNet       the NIO plumbing transports share: chat bootstrap, WebSocket and HTTP clients, TLS, timeouts
//   ParleyStreamChat the StreamChat transport: client, options, embedded server
//   ParleySocketIO  the Socket.IO transport: Engine.IO client, SocketChat mapping, options, embedded server
//   ParleyREST      the REST channels transport (live events over ParleySocketIO's Engine.IO client)
//   ParleySTOMP     the STOMP transport (over WebSocket or TCP)
//   ParleyRuntime   running bots: Config, one folder per stage (Presence, Router, PluginHost, Outbox),
//                   PluginTest (the harness of `parley plugin test`), Fleet, Logs, Metrics
//   parley          the command-line tool, the demo and the embedded-server wiring
//   ParleyBench     `make bench`
//   ParleyFuzzTargets the parsers under fuzz, one named target each (NIO-free)
//   ParleyFuzz      `parley-fuzz`: libFuzzer driver (`make fuzz`), else a replay tool
let package = Package(
    name: "Parley",
    products: [
        .executable(name: "parley", targets: ["parley"]),
        .executable(name: "parley-fuzz", targets: ["ParleyFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "CParleyLua",
            dependencies: ["CLua"],
            cSettings: [.define("_GNU_SOURCE")],
            // Lua itself from Debian's static archive, the build the stock
            // `lua5.4` interpreter is linked with (see docs/benchmarks.md).
            // pkg-config also names the shared library, earlier on the link
            // line, so the archive is linked whole to take precedence.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--whole-archive", "-Xlinker", "-l:liblua5.4.a",
                                           "-Xlinker", "--no-whole-archive"])]
        ),
        .target(name: "ParleyLua", dependencies: ["CParleyLua", "CLua", "ParleyWire"]),
        .target(name: "ParleyConfig"),
        .target(name: "CParleyJournal", cSettings: [.define("_GNU_SOURCE")]),
        .target(name: "ParleyJournal", dependencies: ["CParleyJournal"]),
        .target(name: "ParleyCore", dependencies: ["ParleyLua", "ParleyConfig", "ParleyWire", .product(name: "NIOCore", package: "swift-nio")]),
        .target(name: "ParleyStore", dependencies: ["ParleyCore", "ParleyJournal", "ParleyLua"]),
        .target(name: "ParleyWire"),
        .target(
            name: "ParleyNet",
            dependencies: [
                "ParleyCore", "ParleyConfig",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .target(
            name: "ParleyStreamChat",
            dependencies: [
                "ParleyCore", "ParleyConfig", "ParleyNet", "ParleyWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "ParleySocketIO",
            dependencies: [
                "ParleyCore", "ParleyConfig", "ParleyNet", "ParleyWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            // The web chat page the embedded server serves at `/`.
            resources: [.embedInCode("Server/Web/chat.html"), .embedInCode("Server/Web/chat.css"), .embedInCode("Server/Web/chat.js")]
        ),
        .target(
            name: "ParleyREST",
            dependencies: [
                "ParleyCore", "ParleyConfig", "ParleyNet", "ParleySocketIO", "ParleyWire",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .target(
            name: "ParleySTOMP",
            dependencies: [
                "ParleyCore", "ParleyConfig", "ParleyNet", "ParleyWire",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "ParleyRuntime",
            dependencies: [
                "ParleyCore", "ParleyStore", "ParleyConfig", "ParleyJournal", "ParleyLua", "ParleyWire", "CParleyJournal", "ParleyNet", "ParleyStreamChat", "ParleySocketIO", "ParleyREST", "ParleySTOMP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The plugin API's prelude and its two extensions, in the binary (`PackageResources.prelude_lua`, ...).
            resources: [.embedInCode("PluginHost/prelude.lua"), .embedInCode("PluginHost/prelude_commands.lua"),
                        .embedInCode("PluginHost/prelude_extras.lua"),
                        // The dashboard the --http server serves at `/`.
                        .embedInCode("Dashboard/Web/dashboard.html"), .embedInCode("Dashboard/Web/dashboard.css"),
                        .embedInCode("Dashboard/Web/dashboard.js")]
        ),
        .executableTarget(
            name: "parley",
            dependencies: [
                "ParleyCore", "ParleyRuntime", "ParleyStore", "ParleyStreamChat", "ParleySocketIO", "ParleyNet", "ParleyWire", "ParleyConfig", "ParleyJournal", "ParleyLua",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ParleyBench",
            dependencies: ["ParleyCore", "ParleyStore", "ParleyLua", "CLua", "ParleyJournal", "CSQLite", "ParleyRuntime", "ParleyNet", "ParleyStreamChat", "ParleySocketIO", "ParleyWire",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOWebSocket", package: "swift-nio")]
        ),
        .target(
            name: "ParleyFuzzTargets",
            dependencies: ["ParleyWire", "ParleyConfig", "ParleyJournal", "CParleyJournal", "CParleyLua", "ParleyLua"]
        ),
        .executableTarget(name: "ParleyFuzz", dependencies: ["ParleyFuzzTargets"]),
        // What every test target shares (the repository's folder, scratch folders, waiting).
        .target(name: "ParleyTestSupport", path: "Tests/ParleyTestSupport"),
        .testTarget(name: "ParleyFuzzTests", dependencies: ["ParleyFuzzTargets"]),
        .testTarget(name: "ParleyLuaTests", dependencies: ["ParleyLua", "CParleyLua"], exclude: ["Fixtures"]),
        .testTarget(name: "ParleyConfigTests", dependencies: ["ParleyConfig", "ParleyJournal"]),
        .testTarget(name: "ParleyJournalTests", dependencies: ["ParleyJournal"]),
        .testTarget(name: "ParleyWireTests", dependencies: ["ParleyWire", "ParleyJournal"]),
        .testTarget(
            name: "ParleyTransportsTests",
            dependencies: ["ParleyTestSupport", "ParleyStreamChat", "ParleySocketIO", "ParleyCore", "ParleyWire", "ParleyJournal", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio")]
        ),
        .testTarget(
            name: "ParleyRuntimeTests",
            dependencies: ["ParleyTestSupport", "ParleyRuntime", "ParleyStore", "ParleyNet", "ParleyStreamChat", "ParleySocketIO", "ParleyREST", "ParleySTOMP", "ParleyConfig", "ParleyCore", "ParleyWire", "ParleyLua", "ParleyJournal",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                           .product(name: "NIOEmbedded", package: "swift-nio"),
                           // The REST tests drive the python fixture's test endpoints over HTTP.
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           // The webhook tests sign their requests as GitHub does.
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "ParleyPluginTests", dependencies: ["ParleyTestSupport", "ParleyRuntime", "ParleyStore", "ParleyCore", "ParleyJournal", "ParleyLua", "ParleyWire"], exclude: ["Golden", "Hostile", "Crash"]),
    ],
    swiftLanguageModes: [.v6]
)

// Parley's own modules keep Swift's run-time exclusivity checks in every
// build, so an overlapping access (a plugin's native re-entering the host,
// say) traps rather than corrupts. The release build turns them off for
// the dependencies only (scripts/release-build.sh): a frontend flag given
// here comes after the one it passes to every module, and wins. (The C
// targets ignore Swift settings.)
for target in package.targets where [.regular, .executable].contains(target.type) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-enforce-exclusivity=checked"])]
}
