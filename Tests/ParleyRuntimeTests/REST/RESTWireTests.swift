import ParleyCore
@testable import ParleyREST
import ParleyWire
import Testing

/// The REST transport's pure parts: timestamps, chat objects, and the feed's
/// rules (own chats, duplicates, first-message joins).
@Suite struct RESTWireTests {
    @Test func timestampsRoundTripAtMillisecondPrecision() {
        #expect(RESTDate.parse("1970-01-01T00:00:00.000Z") == 0)
        #expect(RESTDate.parse("2024-02-29T23:59:59.999Z") == 1_709_251_199.999)
        #expect(RESTDate.parse("2024-03-01T08:59:59.5+09:00") == 1_709_251_199.5)
        #expect(RESTDate.parse("2024-03-01T00:00:00Z") == 1_709_251_200)
        for text in ["2026-11-21T09:39:29.399Z", "1999-12-31T23:59:59.001Z", "2038-01-19T03:14:08.000Z", "2000-02-29T12:00:00.010Z"] {
            #expect(RESTDate.format(RESTDate.parse(text)!) == text)
        }
        for bad in ["", "2024-02-29", "2024-13-01T00:00:00.000Z", "2024-02-29T23:59:59.999", "2024-02-29 23:59:59.999Z",
                    "2024-02-29T23:59:59.Z", "2024-02-29T23:59:59.999Zjunk"] {
            #expect(RESTDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func chatsAreReadAndUnknownFieldsIgnored() throws {
        let json = try JSONValue.parse("""
        {"channel_id":3,"channelName":"general","chat_id":17,"content":"hi","createdAt":"2026-11-21T09:39:29.399Z",
         "files":["a.png"],"extra":{"deep":[1,2]},"user":{"user_id":4,"email":"a@x","nickname":"alice","profileImage":null,"badge":1}}
        """)
        let chat = try RESTChat(json: json)
        #expect(chat == RESTChat(id: "17", content: "hi", time: 1_795_253_969.399, userId: "4", nickname: "alice"))
        #expect(chat.message(room: "acme/general", replayed: true)
            == ChatMessage(room: "acme/general", user: "alice", text: "hi", id: "17", time: 1_795_253_969.399, replayed: true))
        for bad in ["[]", "{\"content\":\"x\"}", "{\"chat_id\":1,\"createdAt\":\"2026-11-21T09:39:29.399Z\",\"user\":{\"user_id\":1}}",
                    "{\"chat_id\":1,\"content\":\"x\",\"createdAt\":\"yesterday\",\"user\":{\"user_id\":1}}",
                    "{\"chat_id\":1,\"content\":\"x\",\"createdAt\":\"2026-11-21T09:39:29.399Z\"}"] {
            #expect(throws: RESTChatError.self, "\(bad)") { try RESTChat(json: try JSONValue.parse(bad)) }
        }
    }

    @Test func theFeedDropsOwnChatsAndDuplicatesAndAnnouncesNewPeople() {
        var feed = RESTFeed(ownUserId: "1")
        func chat(_ id: Int, _ user: String, _ userId: String) -> RESTChat {
            RESTChat(id: String(id), content: "m\(id)", time: Double(id), userId: userId, nickname: user)
        }
        feed.backfilled([chat(1, "old-timer", "9")], room: "r")
        #expect(feed.events(for: chat(2, "parley", "1"), room: "r", replayed: false) == [])
        #expect(feed.events(for: chat(3, "old-timer", "9"), room: "r", replayed: true)
            == [.message(ChatMessage(room: "r", user: "old-timer", text: "m3", id: "3", time: 3, replayed: true))])
        #expect(feed.events(for: chat(4, "alice", "5"), room: "r", replayed: false)
            == [.join(room: "r", user: "alice", time: 4), .message(ChatMessage(room: "r", user: "alice", text: "m4", id: "4", time: 4))])
        // The same chat again (live after catch-up, or a server that repeats itself): nothing.
        #expect(feed.events(for: chat(4, "alice", "5"), room: "r", replayed: false) == [])
        #expect(feed.events(for: chat(1, "old-timer", "9"), room: "r", replayed: true) == [])
        // Another room is another audience.
        #expect(feed.events(for: chat(5, "alice", "5"), room: "s", replayed: false).count == 2)
    }
}
