import Foundation
import ParleyCore
import Synchronization
import Testing
import ParleyTestSupport

/// A session's events on their own: the hand-over from transport to runner.
struct TransportEventsTests {
    private func join(_ user: String) -> TransportEvent { .chat(.join(room: "lobby", user: user, time: nil)) }

    /// Collects what a consumer is handed.
    final class Collected: Sendable {
        let items = Mutex<[String]>([])
        var all: [String] { items.withLock { $0 } }
        func add(_ item: TransportEvents.Item) {
            let text: String
            switch item {
            case .event(.chat(.join(_, let u, _))): text = u
            case .event: text = "?"
            case .end(nil): text = "end"
            case .end(let e?): text = "end: \(e)"
            }
            items.withLock { $0.append(text) }
        }
    }

    @Test func eventsBeforeTheAttachComeFirstAndInOrder() {
        let events = TransportEvents()
        events.yield(join("a"))
        events.yield(join("b"))
        let got = Collected()
        events.attach(got.add)
        events.yield(join("c"))
        events.finish()
        #expect(got.all == ["a", "b", "c", "end"])
    }

    @Test func theFirstEndWinsAndLaterEventsAreDropped() {
        let events = TransportEvents()
        let terminated = Atomic(0)
        events.onTermination = { terminated.add(1, ordering: .relaxed) }
        let got = Collected()
        events.attach(got.add)
        events.finish(throwing: TransportError(.idle, "silent"))
        events.finish()
        events.yield(join("late"))
        #expect(got.all.count == 1)
        #expect(got.all.first?.hasPrefix("end: ") == true)
        #expect(terminated.load(ordering: .relaxed) == 1)
    }

    @Test func anEndBeforeTheAttachIsHandedOverAfterTheEarlyEvents() {
        let events = TransportEvents()
        events.yield(join("a"))
        events.finish()
        let got = Collected()
        events.attach(got.add)
        #expect(got.all == ["a", "end"])
    }

    @Test func detachDropsLaterEventsAndTerminatesOnce() {
        let events = TransportEvents()
        let terminated = Atomic(0)
        events.onTermination = { terminated.add(1, ordering: .relaxed) }
        let got = Collected()
        events.attach(got.add)
        events.yield(join("a"))
        events.detach()
        events.detach()
        events.yield(join("b"))
        events.finish()
        #expect(got.all == ["a"])
        #expect(terminated.load(ordering: .relaxed) == 1)
    }

    @Test func onTerminationSetAfterTheEndRunsAtOnce() {
        let events = TransportEvents()
        events.finish()
        let ran = Atomic(false)
        events.onTermination = { ran.store(true, ordering: .relaxed) }
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun)
    }

    @Test func iteratingYieldsTheEventsThenThrowsTheReason() async {
        let events = TransportEvents()
        events.yield(join("a"))
        Task {
            events.yield(join("b"))
            events.finish(throwing: TransportError(.closed, "gone"))
        }
        var seen: [TransportEvent] = []
        await #expect(throws: TransportError.self) {
            for try await e in events { seen.append(e) }
        }
        #expect(seen == [join("a"), join("b")])
    }

    /// Four transport threads yield at once: every event reaches the
    /// consumer, each thread's in its order, and never two calls at a time.
    @Test func concurrentYieldsAreHandedOverOneAtATime() async {
        let events = TransportEvents()
        let inside = Atomic(0)
        let overlaps = Atomic(0)
        let got = Mutex<[Int: [Int]]>([:])
        events.attach { item in
            if inside.add(1, ordering: .acquiringAndReleasing).newValue > 1 { overlaps.add(1, ordering: .relaxed) }
            if case .event(.chat(.join(_, let u, _))) = item {
                let parts = u.split(separator: ":").compactMap { Int($0) }
                got.withLock { $0[parts[0], default: []].append(parts[1]) }
            }
            inside.subtract(1, ordering: .acquiringAndReleasing)
        }
        let threads = (0..<4).map { t in
            Thread {
                for i in 0..<500 { events.yield(.chat(.join(room: "lobby", user: "\(t):\(i)", time: nil))) }
            }
        }
        threads.forEach { $0.start() }
        #expect(await eventually { got.withLock { $0.values.map(\.count).reduce(0, +) } == 2000 })
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(got.withLock { $0 }.values.allSatisfy { $0 == Array(0..<500) })
    }
}
