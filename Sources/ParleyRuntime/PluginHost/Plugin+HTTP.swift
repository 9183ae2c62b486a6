import Foundation
import ParleyCore
import ParleyLua
import ParleyStore

/// `bot.http(req, fn)`: a request is checked and staged in the open
/// transaction, made once the handler committed (a failed handler makes
/// none), and answered later as an event of its own.
extension Plugin {
    static let httpMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    /// Headers the runtime sets itself; a plugin that sets them is told so.
    static let runtimeHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection", "upgrade"]

    /// `http_request(req)`: the request's id, or nil and why.
    func httpRequest(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        let req = a.first ?? .nil
        guard case .table = req else { return .failure(HostCallError("bot.http: the request must be a table")) }
        if let e = HostCallError.unknownOption(in: req, who: "bot.http", known: ["url", "method", "headers", "body", "timeout"]) { return .failure(e) }
        guard let url = req["url"].stringValue else { return .failure(HostCallError("bot.http: url must be a string")) }
        var method = "GET"
        if !req["method"].isNil {
            guard let m = req["method"].stringValue?.uppercased(), Self.httpMethods.contains(m) else {
                return .failure(HostCallError("bot.http: method must be one of \(Self.httpMethods.sorted().joined(separator: ", "))"))
            }
            method = m
        }
        var headers: [HTTPHeader] = []
        switch req["headers"] {
        case .nil: break
        case .table(let list, let hash) where list.isEmpty:
            for pair in hash {
                guard let name = pair.key.stringValue, let value = pair.value.stringValue,
                      !name.isEmpty, !name.contains(where: { $0 == ":" || $0.isWhitespace || $0.isNewline }),
                      !value.contains(where: \.isNewline) else {
                    return .failure(HostCallError("bot.http: headers must map names to one-line strings"))
                }
                if Self.runtimeHeaders.contains(name.lowercased()) {
                    return .failure(HostCallError("bot.http: the \(name) header is set by the runtime"))
                }
                headers.append(HTTPHeader(name, value))
            }
            headers.sort { $0.name < $1.name }
        default:
            return .failure(HostCallError("bot.http: headers must be a table of name = value"))
        }
        var body: [UInt8]?
        switch req["body"] {
        case .nil: break
        case .bytes(let b): body = b
        default: return .failure(HostCallError("bot.http: body must be a string"))
        }
        let http = services.http
        var timeout = http.timeout
        if !req["timeout"].isNil {
            guard let t = req["timeout"].numberValue, t.isFinite, t > 0 else {
                return .failure(HostCallError("bot.http: timeout must be a positive number of seconds"))
            }
            timeout = min(t, http.timeout)
        }
        let target: HTTPURL
        do { target = try HTTPURL(url) } catch {
            return .success([.nil, .string("bot.http: \(error)")])
        }
        if let (user, password) = target.userinfo, !headers.contains(where: { $0.name.lowercased() == "authorization" }) {
            headers.append(HTTPHeader("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()))
            headers.sort { $0.name < $1.name }
        }
        guard http.entry(host: target.host, port: target.port) != nil else {
            return refuse("http-allow", "bot.http: \(target.hostPort) is not in [bot.http] allow")
        }
        if staged.http.count >= http.requestsPerEvent {
            return refuse("http-event", "bot.http: more than \(http.requestsPerEvent) requests in one event ([bot.http] requests_per_event)")
        }
        if httpInFlight.count + staged.http.count >= http.inFlight {
            return refuse("http-in-flight", "bot.http: \(http.inFlight) requests already in flight ([bot.http] in_flight)")
        }
        let id = nextTimerId
        nextTimerId += 1
        staged.http.append(HTTPCall(id: id, method: method, url: url, headers: headers, body: body, timeout: timeout))
        return .success([.int(id)])
    }
}

extension Bot {
    /// The answer to a plugin's `bot.http` request, delivered as its own
    /// event: `fn(res)` or `fn(nil, reason)`.
    public func answer(plugin name: String, request id: Int64, _ outcome: HTTPOutcome) throws(StoreError) -> [BotAction] {
        guard let p = plugins.first(where: { $0.name == name }),
              let callback = p.httpInFlight.removeValue(forKey: id), !p.isDisabled else { return [] }
        return try deliver(to: p, kind: "http") { w in
            switch outcome {
            case .response(let status, let headers, let body):
                // Repeated headers are joined with ", " (RFC 9110), names in lower case.
                var joined: [(String, String)] = []
                for h in headers {
                    let n = h.name.lowercased()
                    if let i = joined.firstIndex(where: { $0.0 == n }) { joined[i].1 += ", " + h.value } else { joined.append((n, h.value)) }
                }
                w.beginTable(array: 0, pairs: 4)
                w.key(.id); w.write(callback)
                w.key(.status); w.write(Int64(status))
                w.key(.headers)
                w.beginTable(array: 0, pairs: joined.count)
                for (n, v) in joined { w.write(n); w.write(v) }
                w.key(.body); w.write(bytes: body)
            case .failed(let reason):
                w.beginTable(array: 0, pairs: 2)
                w.key(.id); w.write(callback)
                w.key(.error); w.write(reason)
            }
        }
    }
}
