// swift-tools-version:6.1
import PackageDescription

// Parley: a headless chat-bot runtime with sandboxed Lua 5.4 plugins.
//
// Module map (each has one job):
//   CLua            system library: Debian's liblua5.4 headers
//   CParleyLua      C side of the sandbox: hook, allocator, trampolines, pattern matcher
//   ParleyLua       Swift VM wrapper: one sandboxed lua_State per plugin
//   ParleyConfig    TOML parser and config readers with file:line errors
//   CParleyJournal  CRC32C and fdatasync helpers for the journal
//   ParleyJournal   crash-safe append-only file journal
//   ParleyCore      events, actions, plugin API v1, the bot and its router
//   parley          the command-line tool
//   ParleyBench     `make bench`
let package = Package(
    name: "Parley",
    products: [
        .executable(name: "parley", targets: ["parley"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
            cSettings: [.define("_GNU_SOURCE")]
        ),
        .target(name: "ParleyLua", dependencies: ["CParleyLua", "CLua"]),
        .target(name: "ParleyConfig"),
        .target(name: "CParleyJournal", cSettings: [.define("_GNU_SOURCE")]),
        .target(name: "ParleyJournal", dependencies: ["CParleyJournal"]),
        .target(name: "ParleyCore", dependencies: ["ParleyLua", "ParleyConfig", "ParleyJournal"]),
        .executableTarget(
            name: "parley",
            dependencies: [
                "ParleyCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ParleyBench",
            dependencies: ["ParleyCore", "ParleyLua", "ParleyJournal", "CSQLite"]
        ),
        .testTarget(name: "ParleyLuaTests", dependencies: ["ParleyLua", "CParleyLua"], exclude: ["Fixtures"]),
        .testTarget(name: "ParleyConfigTests", dependencies: ["ParleyConfig"]),
        .testTarget(name: "ParleyJournalTests", dependencies: ["ParleyJournal"]),
        .testTarget(name: "ParleyCoreTests", dependencies: ["ParleyCore", "ParleyJournal"], exclude: ["Golden", "Hostile", "Crash"]),
    ],
    swiftLanguageModes: [.v6]
)
