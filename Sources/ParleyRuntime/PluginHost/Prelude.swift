/// The trusted Lua that builds plugin API v1 (the global `bot`) inside each
/// plugin VM, and returns the two dispatchers the host calls: one for
/// messages, one for every other kind of event.
///
/// Matching (`bot.hear`, `bot.command`) is routed here, inside the plugin's
/// own VM, on purpose: it uses the plugin's own budgeted pattern matcher, so a
/// plugin's patterns are charged to that plugin. `bot.hear` matches through
/// `native.hear` (patterns.c), one C call per pattern that searches and enters
/// the handler, since nearly every plugin hears every line of its rooms.
/// Output actions (`bot.send`, `bot.typing`, `bot.log.*`) are C natives
/// that buffer actions without leaving the VM; queries (`bot.state`, timers,
/// `bot.history`, `bot.roster`) are host functions reached through the C
/// trampoline.
import Foundation
import ParleyCore
import ParleyLua

enum Prelude {
    /// `prelude.lua`, embedded in the binary, with the `WANT` table's fields
    /// filled in from `EventInterest` (one list of event kinds for Swift and Lua).
    static let source = String(decoding: PackageResources.prelude_lua, as: UTF8.self)
        .replacingOccurrences(of: "@WANT@", with: EventInterest.luaFields)

    /// The extensions a VM loads when its plugin first reaches for them, as
    /// bytecode compiled once per process (`native.extension(name)`).
    static let extensions: [String: [UInt8]] = [
        "commands": PluginVM.compiled(prelude: HostFunction.fillIn(String(decoding: PackageResources.prelude_commands_lua, as: UTF8.self))),
        "extras": PluginVM.compiled(prelude: HostFunction.fillIn(String(decoding: PackageResources.prelude_extras_lua, as: UTF8.self))),
    ]
}

/// The event kinds a plugin VM is spared while none of its handlers listens
/// to them: bits of `parley_ctx.wants`, which the prelude sets as `bot.on`,
/// `bot.hear` and `bot.command` register (a `message` interest is any of the
/// three). `load` and `timer` events always run: a timer's own function is
/// no handler of the kind. Why: a simulated user with no handlers would
/// otherwise build a table and run the dispatcher for every line its room
/// hears, thousands of times a second across a fleet.
struct EventInterest: OptionSet {
    let rawValue: UInt32
    static let message = EventInterest(rawValue: 1 << 0)
    static let join = EventInterest(rawValue: 1 << 1)
    static let leave = EventInterest(rawValue: 1 << 2)
    static let typing = EventInterest(rawValue: 1 << 3)
    static let roster = EventInterest(rawValue: 1 << 4)
    static let connection = EventInterest(rawValue: 1 << 5)

    static let byKind: [(kind: String, interest: EventInterest)] = [
        ("message", .message), ("join", .join), ("leave", .leave),
        ("typing", .typing), ("roster", .roster), ("connection", .connection),
    ]

    /// The prelude's `WANT` table fields: `message = 1, join = 2, ...`.
    static var luaFields: String {
        byKind.map { "\($0.kind) = \($0.interest.rawValue)" }.joined(separator: ", ")
    }
}

/// The plugin API's prelude and host function table, for benchmarks and
/// tools that drive a `PluginVM` directly.
public enum PreludeAccess {
    public static var source: String { Prelude.source }
    public static var hostFunctions: [String: Int32] { HostFunction.table }
    public static var commonStrings: [String] { EventKey.names }
}
