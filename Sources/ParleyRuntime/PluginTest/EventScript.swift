import ParleyCore
import Foundation

/// One step of a `parley plugin test` event file.
public enum ScriptStep: Sendable, Equatable {
    case event(BotEvent)
    /// Moves the virtual clock forward; due timers fire in order.
    case advance(seconds: Double)
    /// An answer for a `bot.http` request made from here on whose URL starts with `url`.
    case httpReply(ScriptedReply)
    /// A request to a plugin's webhook (the server's checks are not scripted).
    case webhook(plugin: String, WebhookRequest)
    /// `{"type":"moderation_reply","verb":"kick","error":…}`: the next step
    /// of that verb is refused with `error` (unscripted, every step is done).
    case moderationReply(verb: String, error: String)
}

/// `{"type":"http_reply","url":…,"status":…,"body":…,"headers":{…}}`: the
/// harness never touches the network; requests take these, in order.
public struct ScriptedReply: Sendable, Equatable {
    public var url: String
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: String
    /// `"error": "…"`: the request fails with this reason instead.
    public var error: String?
}

/// A bad event file: the message names the file and line, as the CLI prints it.
public struct ScriptError: Error, CustomStringConvertible, Sendable {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// Parses the JSONL event files that drive `parley plugin test`.
///
/// The whole file is checked before anything runs, so a bad line never
/// leaves half a transcript behind.
public enum EventScript {
    public static func parse(_ text: String, file: String) throws(ScriptError) -> [(line: Int, step: ScriptStep)] {
        var steps: [(Int, ScriptStep)] = []
        var lineNo = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNo += 1
            if let step = try parseLine(String(rawLine), file: file, line: lineNo) { steps.append((lineNo, step)) }
        }
        return steps
    }

    /// One line of a script; nil for a blank line.
    public static func parseLine(_ rawLine: String, file: String, line lineNo: Int) throws(ScriptError) -> ScriptStep? {
        let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
        if line.isEmpty { return nil }
        func fail(_ m: String) -> ScriptError { ScriptError(file: file, line: lineNo, message: m) }
        let object: [String: Any]
        do {
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed]) as? [String: Any] else {
                throw fail("invalid event: expected a JSON object")
            }
            object = o
        } catch let e as ScriptError {
            throw e
        } catch {
            throw fail("invalid JSON")
        }
        return try step(object, fail)
    }

    /// Each event type's keys besides "type": a misspelt one ("tiem") is an
    /// error, as in the plugin API, not a default the script did not ask for.
    static let keys: [String: [String]] = [
        "message": ["room", "user", "text", "id", "time"], "join": ["room", "user", "time"], "leave": ["room", "user", "time"],
        "typing": ["room", "user", "on"], "roster": ["room", "users"], "connection": ["state"],
        "http_reply": ["url", "status", "headers", "body", "error"],
        "webhook": ["plugin", "method", "path", "query", "headers", "body"],
        "moderation_reply": ["verb", "error"], "advance": ["seconds"],
    ]

    private static func step(_ o: [String: Any], _ fail: (String) -> ScriptError) throws(ScriptError) -> ScriptStep {
        guard let type = o["type"] as? String else { throw fail("invalid event: missing \"type\"") }
        if let known = keys[type], let odd = o.keys.sorted().first(where: { $0 != "type" && !known.contains($0) }) {
            throw fail("invalid \(type) event: unknown key \"\(odd)\" (the keys are \(known.joined(separator: ", ")))")
        }
        func string(_ k: String) throws(ScriptError) -> String {
            guard let v = o[k] as? String else { throw fail("invalid \(type) event: \"\(k)\" must be a string") }
            return v
        }
        func optionalString(_ k: String) throws(ScriptError) -> String? {
            guard let v = o[k] else { return nil }
            if let s = v as? String { return s }
            if let n = v as? NSNumber, !isBool(n) { return n.stringValue }
            throw fail("invalid \(type) event: \"\(k)\" must be a string")
        }
        func optionalNumber(_ k: String) throws(ScriptError) -> Double? {
            guard let v = o[k] else { return nil }
            guard let n = v as? NSNumber, !isBool(n) else { throw fail("invalid \(type) event: \"\(k)\" must be a number") }
            return n.doubleValue
        }
        func fields(_ k: String) throws(ScriptError) -> [HTTPHeader] {
            guard let v = o[k] else { return [] }
            guard let d = v as? [String: Any], d.values.allSatisfy({ $0 is String }) else {
                throw fail("invalid \(type) event: \"\(k)\" must be an object of strings")
            }
            return d.map { HTTPHeader($0.key, $0.value as! String) }.sorted { $0.name < $1.name }
        }
        func bool(_ k: String) throws(ScriptError) -> Bool {
            guard let n = o[k] as? NSNumber, isBool(n) else { throw fail("invalid \(type) event: \"\(k)\" must be true or false") }
            return n.boolValue
        }
        switch type {
        case "message":
            return .event(.message(ChatMessage(room: try string("room"), user: try string("user"), text: try string("text"),
                                               id: try optionalString("id"), time: try optionalNumber("time"))))
        case "join":
            return .event(.join(room: try string("room"), user: try string("user"), time: try optionalNumber("time")))
        case "leave":
            return .event(.leave(room: try string("room"), user: try string("user"), time: try optionalNumber("time")))
        case "typing":
            return .event(.typing(room: try string("room"), user: try string("user"), on: try bool("on")))
        case "roster":
            guard let users = o["users"] as? [Any] else { throw fail("invalid roster event: \"users\" must be a list") }
            var entries: [RosterEntry] = []
            for u in users {
                if let name = u as? String {
                    entries.append(RosterEntry(user: name, online: true))
                } else if let d = u as? [String: Any], let name = d["user"] as? String {
                    let online = (d["online"] as? NSNumber).map { $0.boolValue } ?? true
                    entries.append(RosterEntry(user: name, online: online))
                } else {
                    throw fail("invalid roster event: each user is a name or {\"user\": ..., \"online\": ...}")
                }
            }
            return .event(.roster(room: try string("room"), users: entries))
        case "connection":
            let s = try string("state")
            guard let state = ConnectionState(rawValue: s) else {
                throw fail("invalid connection event: unknown state \"\(s)\" (expected \(ConnectionState.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return .event(.connection(state))
        case "http_reply":
            let status = try optionalNumber("status") ?? 200
            guard status == status.rounded(), (100...599).contains(status) else {
                throw fail("invalid http_reply event: \"status\" must be a whole number from 100 to 599")
            }
            return .httpReply(ScriptedReply(url: try string("url"), status: Int(status), headers: try fields("headers"),
                                            body: try optionalString("body") ?? "", error: try optionalString("error")))
        case "webhook":
            return .webhook(plugin: try string("plugin"), WebhookRequest(
                method: try optionalString("method") ?? "POST", path: try string("path"), query: try optionalString("query") ?? "",
                headers: try fields("headers"),
                body: Array((try optionalString("body") ?? "").utf8)))
        case "moderation_reply":
            let verb = try string("verb")
            guard ["kick", "mute", "delete"].contains(verb) else {
                throw fail("invalid moderation_reply event: \"verb\" must be kick, mute or delete")
            }
            return .moderationReply(verb: verb, error: try string("error"))
        case "advance":
            guard let s = try optionalNumber("seconds"), s >= 0, s.isFinite else {
                throw fail("invalid advance event: \"seconds\" must be a number >= 0")
            }
            return .advance(seconds: s)
        default:
            throw fail("unknown event type \"\(type)\" (expected message, join, leave, typing, roster, connection, advance, http_reply, moderation_reply or webhook)")
        }
    }

    /// JSONSerialization gives booleans as NSNumber too; their type code is "c".
    private static func isBool(_ n: NSNumber) -> Bool {
        String(cString: n.objCType) == "c"
    }
}
