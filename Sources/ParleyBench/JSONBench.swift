import Foundation
import ParleyWire

/// Parley's JSON codec against Foundation's `JSONSerialization`, on the
/// messages Parley reads and writes most: a SocketChat event's arguments, a
/// REST chat object, a STOMP body. Both parse from bytes and encode to text;
/// each figure is the best of five rounds, in nanoseconds per message.
enum JSONBench {
    static let samples: [(name: String, text: String)] = [
        ("Socket.IO event", #"["newChatMessage","alice","hello there, how is everyone doing today?","11/21/2026, 3:04:05 PM"]"#),
        ("REST chat", #"{"chat_id":"c-1234567","channel_id":42,"user_id":"u-77","nickname":"alice","content":"hello there, how is everyone doing today?","createdAt":"2026-11-21T15:04:05.123Z","files":[]}"#),
        ("STOMP body", #"{"type":"message","roomId":"general","sender":"alice","text":"hello there, how is everyone doing today?","ts":1795783414790}"#),
    ]

    static func run(quick: Bool) throws {
        let n = quick ? 20_000 : 100_000
        print("\n== json: Parley's codec against Foundation's JSONSerialization, ns per message (best of 5 rounds of \(n))")
        print("  message           parse: parley  foundation  ratio    encode: parley  foundation  ratio")
        for (name, text) in samples {
            let bytes = Array(text.utf8)
            let data = Data(bytes)
            let ours = try JSONValue.parse(bytes: bytes)
            let theirs = try JSONSerialization.jsonObject(with: data)
            let parseOurs = try best { for _ in 0..<n { _ = try JSONValue.parse(bytes: bytes) } } / Double(n)
            let parseTheirs = try best { for _ in 0..<n { _ = try JSONSerialization.jsonObject(with: data) } } / Double(n)
            let encodeOurs = try best { for _ in 0..<n { _ = ours.text } } / Double(n)
            let encodeTheirs = try best { for _ in 0..<n { _ = try JSONSerialization.data(withJSONObject: theirs) } } / Double(n)
            print("  " + name.padding(toLength: 16, withPad: " ", startingAt: 0)
                  + String(format: "  %12.0f  %10.0f  %5.2f×    %14.0f  %10.0f  %5.2f×",
                           parseOurs, parseTheirs, parseOurs / parseTheirs, encodeOurs, encodeTheirs, encodeOurs / encodeTheirs))
        }
    }

    /// The fastest of five rounds, in nanoseconds.
    static func best(_ round: () throws -> Void) throws -> Double {
        var times: [Double] = []
        for _ in 0..<5 {
            let t = monoNow()
            try round()
            times.append(Double(monoNow() - t))
        }
        return times.min()!
    }
}
