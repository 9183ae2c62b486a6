import Foundation
import ParleyCore
import ParleyStore
import CParleyLua

/// Host functions of the plugin API, by the name the prelude uses.
enum HostFunction: Int32, CaseIterable {
    case stateGet = 1, stateSet, timerAdd, timerCancel, history, roster, checkLength, away
    case commandInfo, roles, help, mayRun, jsonEncode, jsonDecode, httpRequest, webhookAdd, webhookReply, moderate, preludeExtension
    case answersHelp, fit, timerUnheard, stateKeys

    var luaName: String {
        switch self {
        case .stateGet: "state_get"
        case .stateSet: "state_set"
        case .timerAdd: "timer_add"
        case .timerCancel: "timer_cancel"
        case .history: "history"
        case .roster: "roster"
        case .checkLength: "check_length"
        case .away: "away"
        case .commandInfo: "command_info"
        case .roles: "roles"
        case .help: "help"
        case .mayRun: "may_run"
        case .jsonEncode: "json_encode"
        case .jsonDecode: "json_decode"
        case .httpRequest: "http_request"
        case .webhookAdd: "webhook_add"
        case .webhookReply: "webhook_reply"
        case .moderate: "moderate"
        case .preludeExtension: "extension"
        case .answersHelp: "answers_help"
        case .fit: "fit"
        case .timerUnheard: "timer_unheard"
        case .stateKeys: "state_keys"
        }
    }

    /// The API call a plugin made to reach it, when only one does: an
    /// argument the C side cannot hand over is refused in its name.
    var apiName: String? {
        switch self {
        case .stateGet: "bot.state.get"
        case .stateSet: "bot.state.set"
        case .stateKeys: "bot.state.keys"
        case .timerCancel: "bot.cancel"
        case .history: "bot.history"
        case .roster: "bot.roster"
        case .away: "bot.away"
        case .commandInfo: "bot.command"
        case .roles: "bot.roles"
        case .jsonEncode: "bot.json.encode"
        case .jsonDecode: "bot.json.decode"
        case .httpRequest: "bot.http"
        case .webhookAdd: "bot.webhook"
        case .fit: "bot.fit"
        // Several calls share these (bot.after, every and cron; kick, mute and delete), or no plugin calls them.
        case .timerAdd, .moderate, .checkLength, .help, .mayRun, .webhookReply, .preludeExtension, .answersHelp, .timerUnheard: nil
        }
    }

    /// Made by id when a plugin first reaches for it: by a prelude extension
    /// (`native.host(id)`), or by C with `bot.state` and `bot.json`, which
    /// finds the id by `apiName`. Not in every VM's table of natives, so a VM
    /// that never uses it holds no closure.
    var madeByID: Bool {
        switch self {
        case .commandInfo, .help, .mayRun, .httpRequest, .webhookAdd, .webhookReply, .moderate, .fit: true
        case .stateGet, .stateSet, .stateKeys, .jsonEncode, .jsonDecode: true
        default: false
        }
    }

    /// The natives the prelude gets by name. Every VM's setup reads it
    /// first, so making it is where C learns the API names, once a process.
    static let table: [String: Int32] = {
        for f in allCases { if let api = f.apiName { parley_name_host_function(f.rawValue, api) } }
        return Dictionary(uniqueKeysWithValues: allCases.filter { !$0.madeByID }.map { ($0.luaName, $0.rawValue) })
    }()

    /// An extension's source with each `@name@` replaced by that host function's id.
    static func fillIn(_ source: String) -> String {
        allCases.reduce(source) { $0.replacingOccurrences(of: "@\($1.luaName)@", with: String($1.rawValue)) }
    }
}

/// What a plugin needs from its bot while a handler runs.
protocol PluginServices: AnyObject {
    /// The bot's own user name.
    var name: String { get }
    var now: Double { get }
    var stateStore: StateStore { get }
    var historyStore: HistoryStore { get }
    func rosterEntries(room: String) -> [RosterEntry]
    var transport: TransportCapabilities { get }
    /// Sends of this plugin the transport has not taken yet (the outbox quota).
    func waitingSends(plugin: String) -> Int
    /// The roles `[bot.roles]` gives a user, sorted.
    func roles(of user: String) -> [String]
    /// The built-in `help` command's answer to `user`, or nil when a plugin has its own.
    func helpText(for user: String, command: String?, byName: Bool) -> String?
    /// Whether `plugin` answers the built-in `help` now: the first enabled one in load order.
    func answersHelp(_ plugin: Plugin) -> Bool
    /// A command as people type it: `!kick`, or `parley: kick` without a prefix.
    func shown(command: String) -> String
    /// `[bot] timezone`, for `bot.cron`.
    var timeZone: TimeZone { get }
    /// `[bot.http]`: where `bot.http` may go, and its limits.
    var http: HTTPOptions { get }
}

/// A command as its plugin registered it (`bot.command(name, fn, opts)`), for `help`.
struct CommandInfo: Equatable {
    var help: String?
    var usage: String?
    /// Users with any of these roles may run it; empty: everyone.
    var roles: [String]
}
