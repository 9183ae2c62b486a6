import ParleyCore
import Synchronization
import Testing
@testable import ParleyRuntime

/// The per-room incoming queue, the outbox's turns and the outgoing rate cap, on their own.
struct FlowUnitTests {
    private func msg(_ text: String, room: String = "lobby") -> TransportEvent {
        .chat(.message(ChatMessage(room: room, user: "alice", text: text)))
    }

    private func texts(_ events: [TransportEvent]) -> [String] {
        events.map {
            switch $0 {
            case .chat(.message(let m)): m.text
            case .chat(.join(_, let u, _)): "join " + u
            case .backfill(let room, _, _): "backfill " + room
            default: "?"
            }
        }
    }

    @Test func aFullRoomShedsItsOldestMessageFirstAndKeepsEachRoomInOrder() async {
        let inbox = Inbox(bound: 3, wake: {})
        inbox.push(.chat(.join(room: "lobby", user: "bob", time: nil)))
        for t in ["m1", "m2", "m3", "m4"] { inbox.push(msg(t)) }
        inbox.push(msg("o1", room: "other"))
        inbox.push(.backfill(room: "lobby", messages: [], through: RoomCursor(cursor: "c0", time: 0)))
        guard case .events(let batch) = inbox.take(limit: 100) else {
            Issue.record("expected events")
            return
        }
        // m1 and m2 were shed (the join stayed), catch-up is never shed;
        // rooms take turns, each in its own order.
        #expect(texts(batch) == ["join bob", "o1", "m3", "m4", "backfill lobby"])
        #expect(inbox.takeShed().map(\.count) == [2])
        #expect(inbox.takeShed().isEmpty)
        #expect(inbox.shedTotal == 2)
    }

    /// A room's queue goes once drained, so its largest burst's capacity is
    /// not kept for good; a room that shed stays until its count is reported.
    @Test func aDrainedRoomGivesItsBurstMemoryBack() async {
        let inbox = Inbox(bound: 4, wake: {})
        for i in 0..<3 { inbox.push(msg("a\(i)")) }
        for i in 0..<10 { inbox.push(msg("b\(i)", room: "busy")) }
        #expect(inbox.lanesHeld == 2)
        guard case .events(let batch) = inbox.take(limit: 100) else {
            Issue.record("expected events")
            return
        }
        #expect(batch.count == 7)
        #expect(inbox.lanesHeld == 1, "the quiet room's lane went; the busy one waits for its shed report")
        #expect(inbox.takeShed().map(\.count) == [6])
        #expect(inbox.lanesHeld == 0)
        inbox.push(msg("again"))
        guard case .events(let more) = inbox.take(limit: 100) else {
            Issue.record("expected events")
            return
        }
        #expect(texts(more) == ["again"])
        #expect(inbox.lanesHeld == 0)
    }

    @Test func messagesThatSpeakToTheBotAreShedLast() async {
        let options = BotOptions(name: "parley")
        let inbox = Inbox(bound: 3, addressed: { options.isAddressed($0) }, wake: {})
        for t in ["!canary", "chatter 1", "@Parley help", "chatter 2", "chatter 3", "chatter 4"] { inbox.push(msg(t)) }
        guard case .events(let batch) = inbox.take(limit: 100) else { return }
        #expect(texts(batch) == ["!canary", "@Parley help", "chatter 4"])
        #expect(options.isAddressed("parley: hi") && options.isAddressed("  !x") == false && !options.isAddressed("hello parley"))
        // bot.command's rule: a line that merely starts with the name is chat.
        for chat in ["parley said hi", " parley: hi", "parley:", "@parley", "xparley: hi", "!"] {
            #expect(!options.isAddressed(chat), "\(chat)")
        }
        for command in ["PARLEY, help", "@parley\thelp", "!x y"] { #expect(options.isAddressed(command), "\(command)") }
    }

    @Test func joinsAreShedOnlyWhenNoMessageIsLeftToShed() async {
        let inbox = Inbox(bound: 2, wake: {})
        for u in ["a", "b", "c"] { inbox.push(.chat(.join(room: "lobby", user: u, time: nil))) }
        guard case .events(let batch) = inbox.take(limit: 100) else { return }
        #expect(texts(batch) == ["join b", "join c"])
    }

    /// The policy as plainly as it can be said: one queue per room, and a
    /// full room walks its queue for the victim. The inbox must match it.
    private struct ShedModel {
        let bound: Int
        let addressed: (String) -> Bool
        var rooms: [String: [TransportEvent]] = [:]
        var ready: [String] = []

        mutating func push(_ e: TransportEvent, room: String) {
            var q = rooms[room] ?? []
            if q.isEmpty { ready.append(room) }
            var sheddable = false
            if case .chat(let c) = e { if case .connection = c {} else { sheddable = true } }
            if q.count >= bound, sheddable, let victim = victim(in: q) { q.remove(at: victim) }
            q.append(e)
            rooms[room] = q
        }

        func victim(in q: [TransportEvent]) -> Int? {
            let rank: (TransportEvent) -> Int = { e in
                guard case .chat(let c) = e else { return 9 }
                switch c {
                case .typing: return 0
                case .message(let m): return addressed(m.text) ? 1 : 0
                case .join, .leave, .roster: return 2
                case .connection: return 9
                }
            }
            for r in 0...2 { if let i = q.firstIndex(where: { rank($0) == r }) { return i } }
            return nil
        }

        mutating func take(limit: Int) -> [TransportEvent] {
            var out: [TransportEvent] = []
            while out.count < limit, !ready.isEmpty {
                var next: [String] = []
                for room in ready {
                    guard out.count < limit else { next.append(room); continue }
                    out.append(rooms[room]!.removeFirst())
                    if !rooms[room]!.isEmpty { next.append(room) }
                }
                ready = next
            }
            return out
        }
    }

    /// Random runs of every kind of event over three rooms, taken in random
    /// batches: the inbox's order and its choice of victims are the model's.
    @Test func sheddingAndOrderMatchThePlainPolicy() async {
        var rng = SystemRandomNumberGenerator()
        for run in 0..<40 {
            let bound = [1, 2, 3, 5, 8][run % 5]
            let addressed: @Sendable (String) -> Bool = { $0.hasPrefix("!") }
            let inbox = Inbox(bound: bound, addressed: addressed, wake: {})
            var model = ShedModel(bound: bound, addressed: addressed)
            for step in 0..<300 {
                let room = ["lobby", "dev", "ops"][Int.random(in: 0..<3, using: &rng)]
                let e: TransportEvent
                switch Int.random(in: 0..<10, using: &rng) {
                case 0...3: e = msg("m\(step)", room: room)
                case 4: e = msg("!cmd\(step)", room: room)
                case 5: e = .chat(.typing(room: room, user: "t\(step)", on: true))
                case 6: e = .chat(.join(room: room, user: "j\(step)", time: nil))
                case 7: e = .chat(.leave(room: room, user: "l\(step)", time: nil))
                case 8: e = .backfill(room: room, messages: [], through: RoomCursor(cursor: "c\(step)", time: 0))
                default: e = .chat(.roster(room: room, users: [RosterEntry(user: "r\(step)", online: true)]))
                }
                inbox.push(e)
                model.push(e, room: room)
                if Int.random(in: 0..<8, using: &rng) == 0 {
                    let limit = Int.random(in: 1...6, using: &rng)
                    guard case .events(let got) = inbox.take(limit: limit) else { return }
                    let want = model.take(limit: limit)
                    #expect(got == want, "run \(run), bound \(bound), step \(step)")
                    if got != want { return }
                }
            }
            while inbox.hasEvents {
                guard case .events(let got) = inbox.take(limit: 100) else { return }
                #expect(got == model.take(limit: 100), "run \(run): the rest")
            }
            #expect(model.ready.isEmpty)
        }
    }

    /// A full room sheds on every event it takes in; finding the victim must
    /// not walk the queue. Each message is asked "addressed?" once at most,
    /// however long a flood of addressed messages holds the room full.
    @Test func aFullRoomFindsItsVictimWithoutWalkingItsQueue() async {
        let asked = Mutex(0)
        let inbox = Inbox(bound: 1000, addressed: { _ in asked.withLock { $0 += 1 }; return true }, wake: {})
        for i in 0..<5000 { inbox.push(msg("!flood \(i)")) }
        #expect(asked.withLock { $0 } <= 5000)
        #expect(inbox.shedTotal == 4000)
        guard case .events(let batch) = inbox.take(limit: 5000) else { return }
        #expect(batch.count == 1000)
        #expect(texts(batch).first == "!flood 4000" && texts(batch).last == "!flood 4999")
    }

    @Test func batchesAreBoundedAndTheEndComesAfterEverythingQueued() async {
        let inbox = Inbox(bound: 100, wake: {})
        for i in 1...10 { inbox.push(msg("m\(i)")) }
        inbox.finish(error: nil)
        guard case .events(let first) = inbox.take(limit: 4) else { return }
        #expect(texts(first) == ["m1", "m2", "m3", "m4"])
        guard case .events(let rest) = inbox.take(limit: 100) else { return }
        #expect(rest.count == 6)
        guard case .end(let error) = inbox.take(limit: 100) else {
            Issue.record("expected the end")
            return
        }
        #expect(error == nil)
    }

    /// The pump is woken once after it found the inbox empty: by the next
    /// push or by the end, never while it has not looked.
    @Test func anEmptyTakeArmsOneWake() {
        let wakes = Mutex(0)
        let inbox = Inbox(bound: 10, wake: { wakes.withLock { $0 += 1 } })
        inbox.push(msg("early"))
        #expect(wakes.withLock { $0 } == 0, "the pump has not looked yet")
        guard case .events(let first) = inbox.take(limit: 10) else {
            Issue.record("expected events")
            return
        }
        #expect(texts(first) == ["early"])
        #expect(inbox.take(limit: 10).map { _ in true } == nil)
        inbox.push(msg("late"))
        inbox.push(msg("later"))
        #expect(wakes.withLock { $0 } == 1, "one wake for the two pushes")
        guard case .events(let batch) = inbox.take(limit: 10) else {
            Issue.record("expected events")
            return
        }
        #expect(texts(batch) == ["late", "later"])
        #expect(inbox.take(limit: 10).map { _ in true } == nil)
        inbox.finish(error: nil)
        #expect(wakes.withLock { $0 } == 2, "the end wakes it too")
        guard case .end(let error) = inbox.take(limit: 10) else {
            Issue.record("expected the end")
            return
        }
        #expect(error == nil)
    }

    @Test func theRateCapLetsABurstGoThenOnePerInterval() {
        var flow = FlowOptions()
        flow.sendRate = 10
        flow.sendBurst = 3
        var rate = SendRate(flow, now: 100)
        #expect((0..<3).map { _ in rate.take(now: 100) } == [0, 0, 0])
        #expect(abs(rate.take(now: 100) - 0.1) < 1e-9)
        #expect(abs(rate.take(now: 100.05) - 0.05) < 1e-9)
        #expect(rate.take(now: 100.1) == 0)
        // A long quiet spell refills only up to the burst.
        #expect((0..<3).map { _ in rate.take(now: 200) } == [0, 0, 0])
        #expect(abs(rate.take(now: 200) - 0.1) < 1e-9)
        flow.sendRate = 0
        var free = SendRate(flow, now: 0)
        #expect((0..<1000).allSatisfy { _ in free.take(now: 0) == 0 })
    }

    /// A StreamChat text of many lines is as many messages: it goes once a
    /// token is there, and what follows waits out the rest.
    @Test func aTextOfManyMessagesCostsATokenEach() {
        var flow = FlowOptions()
        flow.sendRate = 10
        flow.sendBurst = 3
        var rate = SendRate(flow, now: 100)
        let lines = TransportCapabilities.streamchat.messageCount(of: "one\ntwo\r\n\nthree\u{2028}four\nfive\n")
        #expect(lines == 5)
        #expect(rate.take(now: 100, cost: lines) == 0, "more than the burst still goes")
        // 3 - 5 = -2 tokens: the next waits for 3 tokens' worth of refill.
        #expect(abs(rate.take(now: 100) - 0.3) < 1e-9)
        #expect(rate.take(now: 100.3) == 0)
        #expect(TransportCapabilities.streamchat.messageCount(of: "one line") == 1)
        #expect(TransportCapabilities(name: "socketio").messageCount(of: "a\nb\nc") == 1, "one message with line breaks in it")
    }

    /// A send to the lobby whose id is its text.
    static func send(_ plugin: String, _ text: String) -> OutgoingMessage {
        OutgoingMessage(id: text, room: "lobby", text: text, plugin: plugin)
    }

    /// Commits sends and makes them durable at once: they are queued.
    static func queue(_ outbox: inout Outbox, _ plugin: String, _ text: String) {
        let request = outbox.commit([send(plugin, text)], events: 0)
        outbox.release(through: request, now: 0)
    }

    /// Takes queued sends one at a time, in turn order.
    static func takeAll(_ outbox: inout Outbox, whileTaking: (String) -> Void = { _ in }) -> [String] {
        var order: [String] = []
        while case let (batch, _) = outbox.takeBatch(limit: 1, now: 0, admit: { _ in true }), let m = batch.first {
            order.append(m.text)
            whileTaking(m.text)
            outbox.settle(1)
        }
        return order
    }

    @Test func pluginsTakeTurnsInTheOutboxAndEachKeepsItsOrder() {
        var outbox = Outbox(expiry: 300)
        for i in 1...3 { Self.queue(&outbox, "moderator", "m\(i)") }
        Self.queue(&outbox, "canary", "c1")
        var late = Outbox(expiry: 300)
        let order = Self.takeAll(&outbox)
        #expect(order == ["m1", "c1", "m2", "m3"])
        #expect(outbox.isSettled && outbox.queuedCount == 0)
        // One queued while another plugin's send is in flight joins the rotation behind it.
        for i in 1...3 { Self.queue(&late, "moderator", "m\(i)") }
        let (first, _) = late.takeBatch(limit: 1, now: 0, admit: { _ in true })
        Self.queue(&late, "canary", "c1")
        late.settle(first.count)
        #expect(first.map(\.text) + Self.takeAll(&late) == ["m1", "m2", "c1", "m3"])
    }

    /// Sends wait in commit order until their commit is durable.
    @Test func sendsWaitForTheirCommitInOrder() {
        var outbox = Outbox(expiry: 300)
        let first = outbox.commit([Self.send("echo", "a")], events: 2)
        let second = outbox.commit([Self.send("echo", "b")], events: 1)
        #expect(outbox.uncommittedEvents == 3 && outbox.queuedCount == 0)
        outbox.release(through: first, now: 0)
        #expect(outbox.uncommittedEvents == 1 && outbox.queuedCount == 1)
        outbox.release(through: second, now: 0)
        #expect(Self.takeAll(&outbox) == ["a", "b"])
        #expect(outbox.isSettled)
    }

    /// A queued send past the expiry is handed back apart, not sent.
    @Test func anExpiredSendIsTakenOutApart() {
        var outbox = Outbox(expiry: 10)
        Self.queue(&outbox, "greeter", "old")
        let (batch, expired) = outbox.takeBatch(limit: 8, now: 11, admit: { _ in true })
        #expect(batch.isEmpty && expired.map(\.text) == ["old"])
        #expect(outbox.isSettled)
    }

    /// A send a previous run committed and never delivered counts its age from
    /// its handler's time, not from this run's start: after a long outage it expires.
    @Test func aSendFromBeforeARestartAgesFromItsHandler() {
        var outbox = Outbox(expiry: 10)
        let request = outbox.commit([OutgoingMessage(id: "a", room: "lobby", text: "stale", plugin: "p", time: 1_000),
                                     OutgoingMessage(id: "b", room: "lobby", text: "fresh", plugin: "p", time: 1_095)], events: 0)
        outbox.release(through: request, now: 1_100)
        let (batch, expired) = outbox.takeBatch(limit: 8, now: 1_101, admit: { _ in true })
        #expect(expired.map(\.text) == ["stale"] && batch.map(\.text) == ["fresh"])
    }

    /// A batch whose write failed goes back in front, in its order, with its
    /// plugins' turns first; what was queued meanwhile stays behind it.
    @Test func aFailedBatchGoesBackInFrontInItsOrder() {
        var outbox = Outbox(expiry: 300)
        for i in 1...3 { Self.queue(&outbox, "moderator", "m\(i)") }
        Self.queue(&outbox, "canary", "c1")
        Self.queue(&outbox, "greeter", "g1")
        let (batch, _) = outbox.takeBatch(limit: 3, now: 0, admit: { _ in true })
        #expect(batch.map(\.text) == ["m1", "c1", "g1"])
        Self.queue(&outbox, "canary", "c2")
        // The transport settled the first; the link failed at the second.
        outbox.settle(1)
        #expect(outbox.queuedCount == 5)
        #expect(Self.takeAll(&outbox) == ["c1", "g1", "m2", "c2", "m3"])
        #expect(outbox.isSettled)
    }

    /// A line a second per plugin, and no refusal uncounted: the count held
    /// back goes out with the next line, whether a flush or a report says it.
    @Test func refusalLinesCarryEveryCountHeldBack() {
        var log = QuotaLog()
        #expect(log.report(plugin: "p", "full", now: 0) == "full")
        for t in [0.2, 0.4, 0.6] { #expect(log.report(plugin: "p", "full", now: t) == nil) }
        // No flush came between: the next line past the second says the three.
        #expect(log.report(plugin: "p", "full", now: 1.1) == "full (and 3 more like it in the last 1 s)")
        #expect(log.report(plugin: "p", "full", now: 1.5) == nil)
        #expect(log.report(plugin: "p", "full", now: 1.6) == nil)
        // A flush says the latest held line and the one before it; nothing is left for the next report.
        #expect(log.flush(now: 2.2, force: false).map(\.line) == ["full (and 1 more like it in the last 1 s)"])
        #expect(log.report(plugin: "p", "full", now: 3.3) == "full")
        #expect(log.report(plugin: "q", "other", now: 3.3) == "other")
    }

    /// A fleet's connect failures: ten lines a second at most, the rest
    /// counted into the next line let through; one failing bot is never held.
    @Test func aFleetsConnectFailuresAreRateLimitedWithACount() {
        let lines = HeldLines(noun: "connect failures")
        let first = (0..<25).map { _ in lines.admit(now: 100) }
        #expect(first.compactMap { $0 }.count == 10)
        #expect(first.compactMap { $0 }.allSatisfy { $0.isEmpty })
        #expect(lines.admit(now: 100.5) == " (and 15 more connect failures of this process held back)")
        #expect(lines.admit(now: 100.5) == "")
        // One bot failing every half second is never held back.
        let one = HeldLines(noun: "connect failures")
        #expect((0..<20).allSatisfy { one.admit(now: Double($0) * 0.5) == "" })
    }
}
