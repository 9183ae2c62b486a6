import CLua
import CParleyLua
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Why a plugin call failed, as reported in `error` actions.
public enum PluginFailureKind: String, Sendable {
    case syntax, runtime, budget, memory
}

public struct PluginFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var kind: PluginFailureKind
    public var message: String
    public init(_ kind: PluginFailureKind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { "\(kind.rawValue): \(message)" }
}

public enum LogLevel: String, Sendable {
    case info, warn, error
}

/// An output action a handler produced, in the order it produced them.
public enum VMAction: Sendable, Equatable {
    case send(room: String, text: String)
    case typing(room: String, on: Bool)
    case log(LogLevel, String)
    /// A quota refused something (reported once per quota per event).
    case quota(String)
}

/// The error a host function returns: raised in the plugin as a Lua error.
public struct HostCallError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }

    /// Checks an options table's keys: a misspelt option (`timout`) would
    /// otherwise be dropped without a word, and what it says lost.
    /// `known` is in the order the message lists them.
    public static func unknownOption(in options: LuaValue, who: String, known: [String]) -> HostCallError? {
        guard case .table(let list, let hash) = options else { return nil }
        let listed = known.joined(separator: ", ")
        if !list.isEmpty { return HostCallError("\(who): the options are named: \(listed)") }
        guard let odd = hash.first(where: { pair in !known.contains { LuaValue.string($0) == pair.key } }) else { return nil }
        let name = odd.key.stringValue.map { "'\($0)'" } ?? "(a key that is not a string)"
        return HostCallError("\(who): unknown option \(name) (the options are \(listed))")
    }
}

/// Answers a plugin's calls to host functions (state, timers, history, roster).
///
/// Called synchronously on the VM's thread while the plugin's handler is
/// suspended inside a C trampoline; the implementation must not re-enter the VM.
public protocol HostFunctions: AnyObject {
    func call(function id: Int32, arguments: [LuaValue]) -> Result<[LuaValue], HostCallError>
}

/// What the VM needs to know when it is created.
public struct VMSetup: Sendable {
    /// Trusted Lua run before the plugin; it receives (natives, setup) and returns the dispatcher.
    /// The dispatchers run with the budget hook off: they must enter every
    /// plugin function through `natives.call(fn, ...)`, which meters it.
    public var prelude: String
    public var botName: String
    public var commandPrefix: String
    /// The plugin's table from the bot config (`bot.config`).
    public var config: LuaValue
    public var randomSeed: Int64
    /// Host functions the prelude can reach as `natives[name]`, by id.
    public var hostFunctions: [String: Int32]
    /// Substrings the transport forbids in sent text.
    public var forbiddenSubstrings: [String]
    /// Whether `bot.send` refuses control characters (the transport cannot carry them).
    public var refuseControls = false
    /// The rooms `bot.send` may name; empty: any (the harness).
    public var rooms: [String] = []
    /// Strings written with `ValueWriter.writeCommon(i)` (event field names).
    public var commonStrings: [String] = []
    /// What the transport can do (`bot.transport`), as the prelude receives it.
    public var transport: LuaValue = .table(array: [], hash: [])
    /// The bot's time zone, as the host built it (`parley_zone`, shared and
    /// never freed): `os.date` formats in it and `os.time` reads tables in it.
    /// Nil is UTC.
    public var zone: ZoneTableAddress?

    public init(prelude: String, botName: String, commandPrefix: String = "!", config: LuaValue = .table(array: [], hash: []),
                randomSeed: Int64 = 0, hostFunctions: [String: Int32] = [:], forbiddenSubstrings: [String] = [],
                commonStrings: [String] = []) {
        self.commonStrings = commonStrings
        self.prelude = prelude
        self.botName = botName
        self.commandPrefix = commandPrefix
        self.config = config
        self.randomSeed = randomSeed
        self.hostFunctions = hostFunctions
        self.forbiddenSubstrings = forbiddenSubstrings
    }
}

/// Where a `parley_zone` the host built lives: an address, so a setup stays
/// `Sendable` (the table is never written after it is built, nor freed).
public struct ZoneTableAddress: Sendable, Equatable {
    public let address: Int
    public init(_ table: UnsafePointer<parley_zone>) { address = Int(bitPattern: table) }
}

/// One sandboxed `lua_State`: one plugin, isolated from every other.
///
/// Not thread-safe by design: its owner runs it on one thread at a time (see
/// the runtime's `BotLoop`). Every call into Lua goes through the C entry points
/// in `parley_lua.h`, which never raise.
public final class PluginVM {
    private var state: OpaquePointer?
    private var hostBox: HostBox
    public let limits: PluginLimits
    /// Reused for every event to keep the hot path allocation-free. They
    /// start small and grow to the largest event seen: most VMs (simulated
    /// users, quiet bots) only ever see short messages, and there may be
    /// tens of thousands of them in a process.
    private var eventWriter = ValueWriter(capacity: 64)
    private var dropsWriter = ValueWriter(capacity: 16)
    /// The array the last event's actions were returned in. Parsing the next
    /// event's actions into it again reuses its storage once the caller has
    /// let go of it (as the bot does, right after settling the event), so an
    /// event that sends costs no array allocation.
    /// Unchecked exclusivity: only this class touches it, never reentrantly,
    /// and the dynamic check is runtime code on the path every message takes.
    @exclusivity(unchecked) private var actions: [VMAction] = []

    public init(setup: VMSetup, limits: PluginLimits) throws(PluginFailure) {
        self.limits = limits
        self.hostBox = HostBox()
        var w = ValueWriter()
        w.beginTable(array: 0, pairs: 8)
        w.write("keys")
        w.beginTable(array: setup.commonStrings.count, pairs: 0)
        for k in setup.commonStrings { w.write(k) }
        w.write("prelude"); w.write(bytes: Self.compiled(prelude: setup.prelude))
        w.field("name", setup.botName)
        w.field("prefix", setup.commandPrefix)
        w.write("config"); w.write(setup.config)
        w.write("transport"); w.write(setup.transport)
        w.write("seed"); w.write(setup.randomSeed)
        w.write("natives")
        w.beginTable(array: 0, pairs: setup.hostFunctions.count)
        for (name, id) in setup.hostFunctions.sorted(by: { $0.key < $1.key }) {
            w.write(name)
            w.write(Int64(id))
        }
        var status: Int32 = 0
        let box = Unmanaged.passUnretained(hostBox).toOpaque()
        let L = w.withUnsafeBytes { buf in
            parley_state_new(limits.memoryBytes, box, pluginHostTrampoline,
                             buf.baseAddress?.assumingMemoryBound(to: UInt8.self), buf.count, &status)
        }
        guard let L else { throw PluginFailure(.memory, "cannot allocate a Lua state") }
        state = L
        if status != PARLEY_OK {
            let message = Self.lastError(L)
            parley_state_close(L)
            state = nil
            throw PluginFailure(.runtime, "plugin VM setup failed: \(message)")
        }
        apply(limits: limits, forbidden: setup.forbiddenSubstrings, rooms: setup.rooms)
        if let L = state, let c = parley_ctx_of(L), let (list, count) = Self.cList([setup.commandPrefix, setup.botName]) {
            c.pointee.address = list
            c.pointee.address_len = count
        }
        if let L = state, let c = parley_ctx_of(L) { c.pointee.refuse_controls = setup.refuseControls ? 1 : 0 }
        parley_ctx_of(L)?.pointee.zone = setup.zone.flatMap { UnsafePointer(bitPattern: $0.address) }
    }

    deinit {
        if let state { parley_state_close(state) }
    }

    /// Where the plugin's host function calls go.
    public var host: HostFunctions? {
        get { hostBox.host }
        set { hostBox.host = newValue }
    }

    /// Bytes the VM has allocated.
    public var memoryUsed: Int { state.map { parley_mem_used($0) } ?? 0 }

    /// Bytes of free small blocks the calling thread keeps for the VMs' next
    /// allocations (at most 64 KiB a size class; see blocks.c).
    public static var pooledFreeBytesOfThisThread: Int { parley_block_free_bytes() }
    /// Instructions the last event used, counted in the budget hook's steps
    /// (1,000 instructions), so a small handler reads as 0.
    public var lastEventInstructions: Int { state.map { Int(parley_instructions_used($0)) } ?? 0 }

    /// The event kinds the plugin's handlers listen to, as the prelude
    /// declared them (`native.want`); a field read, no call into Lua.
    public var wants: UInt32 {
        guard let state, let c = parley_ctx_of(state) else { return 0 }
        return c.pointee.wants
    }

    /// Loads plugin source (text only) and runs its top-level chunk under the event budget.
    public func load(source: [UInt8], chunkName: String, now: Double) -> (PluginFailure?, [VMAction]) {
        guard let L = state else { return (PluginFailure(.runtime, "VM closed"), []) }
        parley_event_begin(L, now)
        let status = source.withUnsafeBufferPointer { src in
            src.withMemoryRebound(to: CChar.self) { s in
                parley_load_plugin(L, s.baseAddress, s.count, "@" + chunkName)
            }
        }
        return finish(L, status)
    }

    /// Delivers one event to the prelude's dispatcher.
    ///
    /// - Parameters:
    ///   - kind: event kind (`message`, `join`, ..., `timer`, `load`).
    ///   - write: writes the event table with the given writer.
    ///   - drops: timer ids whose Lua callbacks can be forgotten.
    public func dispatch(kind: String, now: Double, drops: [Int64] = [], write: (inout ValueWriter) -> Void) -> (PluginFailure?, [VMAction]) {
        guard let L = state else { return (PluginFailure(.runtime, "VM closed"), []) }
        // Work on a local writer (swapped out and back) so the hot path pays no
        // dynamic exclusivity checks on a class property.
        var eventWriter = ValueWriter()
        swap(&eventWriter, &self.eventWriter)
        defer { swap(&eventWriter, &self.eventWriter) }
        eventWriter.reset()
        write(&eventWriter)
        parley_event_begin(L, now)
        var kind = kind
        let status = kind.withUTF8 { k in
            eventWriter.withUnsafeBytes { ev in
                withDrops(drops) { dr, drLen in
                    k.withMemoryRebound(to: CChar.self) { kc in
                        parley_dispatch(L, kc.baseAddress, kc.count,
                                        ev.baseAddress?.assumingMemoryBound(to: UInt8.self), ev.count, dr, drLen)
                    }
                }
            }
        }
        return finish(L, status)
    }

    /// Delivers one chat message. The fields go to C as they are
    /// (`parley_dispatch_message`), which passes them to the prelude's message
    /// dispatcher as arguments, and Lua's table constructor builds the event:
    /// no encoding here and decoding there on the path every line a room hears takes.
    public func dispatchMessage(room: String, user: String, text: String, id: String, time: Double,
                                replayed: Bool = false, now: Double, drops: [Int64] = []) -> (PluginFailure?, [VMAction]) {
        guard let L = state else { return (PluginFailure(.runtime, "VM closed"), []) }
        parley_event_begin(L, now)
        let status = Self.withBytes(room) { r in
            Self.withBytes(user) { u in
                Self.withBytes(text) { t in
                    Self.withBytes(id) { i in
                        var m = parley_message(
                            room: Self.chars(r), room_len: r.count, user: Self.chars(u), user_len: u.count,
                            text: Self.chars(t), text_len: t.count, id: Self.chars(i), id_len: i.count,
                            time: time, replayed: replayed ? 1 : 0)
                        return withDrops(drops) { dr, drLen in parley_dispatch_message(L, &m, dr, drLen) }
                    }
                }
            }
        }
        return finish(L, status, room: room)
    }

    /// Calls `body` with the timer ids whose Lua callbacks can be forgotten,
    /// encoded as the dispatcher's last argument; none (nearly every event)
    /// is no bytes, which C passes as nil, and touches no writer.
    @inline(__always)
    private func withDrops(_ drops: [Int64], _ body: (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
        if drops.isEmpty { return body(nil, 0) }
        dropsWriter.reset()
        dropsWriter.beginTable(array: drops.count, pairs: 0)
        for id in drops { dropsWriter.write(id) }
        return dropsWriter.withUnsafeBytes { dr in body(dr.baseAddress?.assumingMemoryBound(to: UInt8.self), dr.count) }
    }

    /// Whether `text` is a command for a bot called `name` whose commands
    /// start with `prefix`: the rule `bot.command` reads lines by, in C
    /// (`parley_find_command`), so the host and the plugins agree on it.
    public static func isCommand(_ text: String, prefix: String, name: String) -> Bool {
        withBytes(prefix) { p in
            withBytes(name) { n in
                withBytes(text) { t in parley_is_command(chars(p), p.count, chars(n), n.count, chars(t), t.count) != 0 }
            }
        }
    }

    /// A string's UTF-8 bytes in place. Not `withUTF8`: that one is
    /// mutating, so each string would first be copied into a `var`, a
    /// retain and a release per string per message.
    @inline(__always)
    private static func withBytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let r = s.utf8.withContiguousStorageIfAvailable(body) { return r }
        var copy = s  // a bridged string without contiguous UTF-8: never from our transports
        return copy.withUTF8(body)
    }

    @inline(__always)
    private static func chars(_ b: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar>? {
        b.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
    }

    /// Sends of this plugin still waiting in the bot's outbox; set before
    /// each event so `bot.send` refuses once `outboxSends` are waiting.
    public func setOutboxWaiting(_ n: Int) {
        if let state, let c = parley_ctx_of(state) { c.pointee.outbox_waiting = Int32(clamping: n) }
    }

    /// A full collection, to give memory back after an event failed on the cap.
    public func collectGarbage() {
        if let state { parley_collect(state) }
    }

    // MARK: - internals

    private func apply(limits: PluginLimits, forbidden: [String], rooms: [String]) {
        guard let L = state, let c = parley_ctx_of(L) else { return }
        c.pointee.instr_limit = Int64(limits.instructions)
        c.pointee.wall_limit_ns = UInt64(max(1, limits.timeMilliseconds)) * 1_000_000
        c.pointee.sends_per_event = Int32(clamping: limits.sendsPerEvent)
        c.pointee.outbox_limit = Int32(clamping: limits.outboxSends)
        c.pointee.max_message_bytes = max(1, limits.messageBytes)
        c.pointee.logs_per_event = Int32(clamping: limits.logLinesPerEvent)
        c.pointee.log_line_max = max(16, limits.logLineBytes)
        if let (list, count) = Self.cList(forbidden.filter { !$0.isEmpty }) {
            c.pointee.forbidden = list
            c.pointee.forbidden_len = count
        }
        if let (list, count) = Self.cList(rooms) {
            c.pointee.rooms = list
            c.pointee.rooms_len = count
        }
    }

    /// `strings` as C reads a list: each followed by a NUL, in one block that
    /// C owns from here on (parley_state_close frees it); nil for none.
    private static func cList(_ strings: [String]) -> (UnsafeMutablePointer<CChar>, Int)? {
        guard !strings.isEmpty else { return nil }
        var bytes: [UInt8] = []
        for s in strings { bytes += Array(s.utf8) + [0] }
        let p = malloc(bytes.count)!
        bytes.withUnsafeBytes { p.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        return (p.assumingMemoryBound(to: CChar.self), bytes.count)
    }

    /// Each distinct prelude (or prelude extension) compiled once per process
    /// (see `parley_compile_chunk`); its text when it does not compile, so
    /// loading it reports the error.
    private static let preludes = Mutex<[String: [UInt8]]>([:])

    public static func compiled(prelude: String) -> [UInt8] {
        if let bytes = preludes.withLock({ $0[prelude] }) { return bytes }
        var buf = parley_buf()
        defer { parley_buf_free(&buf) }
        var text = prelude
        let ok = text.withUTF8 { src in
            src.withMemoryRebound(to: CChar.self) { parley_compile_chunk($0.baseAddress, $0.count, "=parley", &buf) == 0 }
        }
        guard ok, let data = buf.data else { return Array(prelude.utf8) }
        let bytes = Array(UnsafeBufferPointer(start: data, count: buf.len))
        preludes.withLock { $0[prelude] = bytes }
        return bytes
    }

    private static func lastError(_ L: OpaquePointer) -> String {
        guard let c = parley_ctx_of(L) else { return "unknown error" }
        var len = 0
        let text = parley_last_error(c, &len)!
        return pluginFrames(String(decoding: UnsafeRawBufferPointer(start: text, count: len), as: UTF8.self))
    }

    /// An error's traceback with only the plugin's own frames (`greeter.lua:12:
    /// in …`): the prelude's (`?:`) and the host's (`[C]`) say nothing to its
    /// author, and a traceback with none of the plugin's goes entirely.
    static func pluginFrames(_ message: String) -> String {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        guard let marker = lines.lastIndex(of: "stack traceback:") else { return message }
        let frames = lines[(marker + 1)...].filter { $0.contains(".lua:") }
        return (lines[..<marker] + (frames.isEmpty ? [] : ["stack traceback:"] + frames)).joined(separator: "\n")
    }

    /// - Parameter room: the event's room, if it has one: sends to it (nearly
    ///   all of them) get this string back instead of a new one.
    private func finish(_ L: OpaquePointer, _ status: Int32, room: String? = nil) -> (PluginFailure?, [VMAction]) {
        guard let c = parley_ctx_of(L) else { return (PluginFailure(.runtime, "no context"), []) }
        Self.parseActions(UnsafeRawBufferPointer(start: c.pointee.actions.data, count: c.pointee.actions.len),
                          into: &actions, room: room)
        let failure: PluginFailure?
        switch Int(status) {
        case Int(PARLEY_OK): failure = nil
        case Int(PARLEY_ERR_SYNTAX): failure = PluginFailure(.syntax, Self.lastError(L))
        case Int(PARLEY_ERR_BUDGET): failure = PluginFailure(.budget, Self.lastError(L))
        case Int(PARLEY_ERR_MEMORY): failure = PluginFailure(.memory, Self.lastError(L))
        default: failure = PluginFailure(.runtime, Self.lastError(L))
        }
        return (failure, actions)
    }

    /// Parses the C action buffer (format in parley_lua.h) into `out`,
    /// replacing what it held. Stops at anything malformed. A send or typing
    /// indicator to the room of the message being handled (which C records as
    /// `PARLEY_ROOM_HERE`) gets `room` itself.
    ///
    /// Elements are overwritten in place and only a surplus is removed: an
    /// event makes as many actions as the last one nearly always, and
    /// `removeAll(keepingCapacity:)` runs the generic range replacement and
    /// destroys every element each time.
    static func parseActions(_ raw: UnsafeRawBufferPointer, into out: inout [VMAction], room known: String? = nil) {
        var r = ActionReader(raw: raw)
        var n = 0
        while let action = r.action(known: known) {
            if n < out.count { out[n] = action } else { out.append(action) }
            n += 1
        }
        if n < out.count { out.removeSubrange(n...) }
    }
}

/// A cursor over the C action buffer. A struct with mutating methods rather
/// than local functions sharing a captured index: a captured `var` is boxed
/// and every access to it pays a dynamic exclusivity check.
private struct ActionReader {
    let raw: UnsafeRawBufferPointer
    var i = 0

    /// The next action, or nil at the end or at anything malformed.
    mutating func action(known: String?) -> VMAction? {
        guard let kind = byte() else { return nil }
        switch Int(kind) {
        case PARLEY_ACTION_SEND:
            guard let room = room(known: known), let t = text() else { return nil }
            return .send(room: room, text: t)
        case PARLEY_ACTION_TYPING:
            guard let room = room(known: known), let on = byte() else { return nil }
            return .typing(room: room, on: on != 0)
        case PARLEY_ACTION_LOG:
            guard let level = byte(), let t = text() else { return nil }
            return .log(level == 0 ? .info : level == 1 ? .warn : .error, t)
        case PARLEY_ACTION_QUOTA:
            guard let t = text() else { return nil }
            return .quota(t)
        default:
            return nil
        }
    }

    mutating func byte() -> UInt8? {
        guard i < raw.count else { return nil }
        defer { i += 1 }
        return raw[i]
    }

    /// The length of the text at the cursor, if it is all there.
    private func length() -> Int? {
        guard raw.count - i >= 4 else { return nil }
        let n = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt32.self)))
        return raw.count - i - 4 >= n ? n : nil
    }

    mutating func text() -> String? {
        guard let n = length() else { return nil }
        defer { i += 4 + n }
        return String(decoding: UnsafeRawBufferPointer(rebasing: raw[i + 4..<i + 4 + n]), as: UTF8.self)
    }

    /// A room field: `known` for `PARLEY_ROOM_HERE` (C writes it only while a
    /// message from `known`'s room is handled), else the room's text.
    mutating func room(known: String?) -> String? {
        guard raw.count - i >= 4,
              UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt32.self)) == PARLEY_ROOM_HERE
        else { return text() }
        guard let known else { return nil }
        i += 4
        return known
    }
}

/// Holds the host weakly; its address is what the C side passes back to us.
final class HostBox {
    weak var host: HostFunctions?
}

/// The C-callable entry for host functions. Runs inside the C trampoline:
/// it must not throw or call into Lua; it answers through `out`.
private let pluginHostTrampoline: parley_host_fn = { box, fnId, args, argsLen, out in
    guard let box, let out else { return -1 }
    let host = Unmanaged<HostBox>.fromOpaque(box).takeUnretainedValue().host
    func fail(_ message: String) -> Int32 {
        var m = message
        m.withUTF8 { _ = parley_buf_append(out, $0.baseAddress, $0.count) }
        return -1
    }
    guard let host else { return fail("host function unavailable") }
    var reader = ValueReader(UnsafeRawBufferPointer(start: args, count: argsLen))
    let arguments: [LuaValue]
    do { arguments = try reader.readAll() } catch { return fail("malformed arguments") }
    switch host.call(function: fnId, arguments: arguments) {
    case .success(let results):
        var w = ValueWriter()
        for r in results { w.write(r) }
        let ok = w.withUnsafeBytes { parley_buf_append(out, $0.baseAddress, $0.count) }
        return ok == 0 ? Int32(results.count) : fail("not enough memory")
    case .failure(let e):
        return fail(e.message)
    }
}
