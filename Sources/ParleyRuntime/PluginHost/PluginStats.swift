/// What a plugin has cost, for the dashboard: events handled, errors by
/// kind, and the instructions and time of its recent events. Kept by the
/// plugin host on the bot's loop, read as a `PluginReport`.
struct PluginStats {
    /// How many recent events the percentiles are over.
    static let window = 256

    var events = 0
    var errors: [String: Int] = [:]
    private var instructions: [Int32] = []
    private var micros: [Int32] = []
    private var next = 0

    mutating func record(instructions used: Int, seconds: Double) {
        events += 1
        let i = Int32(clamping: used), m = Int32(clamping: Int(seconds * 1_000_000))
        if instructions.count < Self.window {
            instructions.append(i)
            micros.append(m)
        } else {
            instructions[next] = i
            micros[next] = m
            next = (next + 1) % Self.window
        }
    }

    /// p50 and p99 of the recent events: instructions, and milliseconds.
    var percentiles: (instructions: (Int, Int), milliseconds: (Double, Double)) {
        func pick(_ values: [Int32]) -> (Int, Int) {
            guard !values.isEmpty else { return (0, 0) }
            let sorted = values.sorted()
            return (Int(sorted[(sorted.count - 1) / 2]), Int(sorted[min(sorted.count - 1, sorted.count * 99 / 100)]))
        }
        let (i50, i99) = pick(instructions), (m50, m99) = pick(micros)
        return ((i50, i99), (Double(m50) / 1000, Double(m99) / 1000))
    }
}
