import Foundation
import ParleyCore
import ParleyNet
import ParleyREST
import ParleyRuntime
import ParleySTOMP
import ParleySocketIO
import ParleyStreamChat
import Testing
import ParleyTestSupport

/// `[bot.rest]`: defaults speak the seeds' server; every key is checked, a
/// mistake names the file, line and key, and a REST bot cannot start without
/// credentials or with rooms that are not `workspace/channel`.
@Suite struct RESTConfigTests {
    static let folder: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-rest-config-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir.appendingPathComponent("certs"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("certs/ca.pem").path, contents: Data(configTestCAPEM.utf8))
        return dir.path
    }()

    static let account = "[bot.rest]\nemail = \"bot@example.com\"\npassword = \"pw\"\n"

    func parse(_ body: String, rooms: String = "rooms = [\"acme/general\"]\n") throws -> BotConfig {
        try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\ntransport = \"rest\"\n" + rooms + body,
                                path: Self.folder + "/bot.toml").bots[0]
    }

    func error(_ body: String, rooms: String = "rooms = [\"acme/general\"]\n") -> String { errorText { _ = try parse(body, rooms: rooms) } }

    @Test func defaultsAreTheSeedsServer() throws {
        let b = try parse(Self.account)
        #expect(b.transport == "rest")
        var expected = RESTOptions()
        expected.email = "bot@example.com"
        expected.password = "pw"
        #expect(b.rest == expected)
        let o = b.rest
        #expect(o.authHeader == "Authorization" && o.serviceKeyHeader == "SesacKey" && o.refreshHeader == "RefreshToken")
        #expect(o.apiPrefix == "/v1" && o.socketPath == "/socket.io/")
        #expect(o.namespaceTemplate == "/ws-channel-{channel_id}" && o.event == "channel")
        #expect(o.channelInPath == .name && !o.createChannels && !o.multipart)
        #expect(o.backfill == 100 && o.maxRetries == 5)
    }

    @Test func everyKeyIsRead() throws {
        let b = try parse("""
        [bot.rest]
        email = "bot@example.com"
        password = "pw"
        service_key = "k"
        auth_header = "X-Token"
        service_key_header = "X-Key"
        refresh_header = "X-Refresh"
        api_prefix = "/api/v2"
        socket_path = "/ws/"
        namespace_template = "/chan-{channel_id}"
        event = "chat"
        channel_in_path = "id"
        create_channels = true
        backfill = 10000
        multipart = true
        max_retries = 2
        retry_initial = 0.1
        retry_max = 1.5
        max_retry_after = 30
        request_timeout = 5
        max_response_mb = 8
        ca_file = "certs/ca.pem"
        """)
        let o = b.rest
        #expect(o.serviceKey == "k")
        #expect(o.authHeader == "X-Token" && o.serviceKeyHeader == "X-Key" && o.refreshHeader == "X-Refresh")
        #expect(o.apiPrefix == "/api/v2" && o.socketPath == "/ws/")
        #expect(o.namespaceTemplate == "/chan-{channel_id}" && o.event == "chat")
        #expect(o.channelInPath == .id && o.createChannels && o.multipart)
        #expect(o.backfill == 10_000 && o.maxRetries == 2 && o.retryInitial == 0.1 && o.retryMax == 1.5)
        #expect(o.maxRetryAfter == 30 && o.requestTimeout == 5 && o.maxResponseBytes == 8 << 20)
        #expect(o.caFile == Self.folder + "/certs/ca.pem")
    }

    @Test func secretsCanComeFromTheEnvironment() throws {
        setenv("PARLEY_TEST_REST_PASSWORD", "from-env", 1)
        setenv("PARLEY_TEST_REST_KEY", "key-from-env", 1)
        let b = try parse("[bot.rest]\nemail = \"a@b\"\npassword_env = \"PARLEY_TEST_REST_PASSWORD\"\nservice_key_env = \"PARLEY_TEST_REST_KEY\"\n")
        #expect(b.rest.password == "from-env" && b.rest.serviceKey == "key-from-env")
        #expect(error("[bot.rest]\nemail = \"a@b\"\npassword_env = \"PARLEY_TEST_REST_UNSET_VARIABLE\"\n").contains("PARLEY_TEST_REST_UNSET_VARIABLE"))
        #expect(error("[bot.rest]\nemail = \"a@b\"\npassword = \"x\"\npassword_env = \"PARLEY_TEST_REST_PASSWORD\"\n").contains("password_env"))
    }

    @Test func mistakesNameTheKey() {
        #expect(error("").contains("rest.email"))
        #expect(error("[bot.rest]\nemail = \"a@b\"\n").contains("password"))
        // Credentials written at the bot's level are named where they are, not as missing.
        let misplaced = error("email = \"a@b\"\npassword = \"pw\"\n")
        #expect(misplaced.contains("bot.toml:5") && misplaced.contains("unknown key 'bot.email'"), "\(misplaced)")
        #expect(error(Self.account + "backfil = 5\n").contains("backfil"))
        #expect(error(Self.account + "backfill = -1\n").contains("backfill"))
        #expect(error(Self.account + "channel_in_path = \"slug\"\n").contains("channel_in_path"))
        #expect(error(Self.account + "namespace_template = \"/ws-channel\"\n").contains("namespace_template"))
        #expect(error(Self.account + "api_prefix = \"v1\"\n").contains("api_prefix"))
        #expect(error(Self.account + "socket_path = \"socket.io\"\n").contains("socket_path"))
        #expect(error(Self.account + "auth_header = \"Bad Header\"\n").contains("auth_header"))
        #expect(error(Self.account + "event = \"\"\n").contains("event"))
        #expect(error(Self.account + "max_retries = \"5\"\n").contains("max_retries"))
        #expect(error(Self.account + "ca_file = \"missing.pem\"\n").contains("missing.pem"))
        // Rooms name a workspace and a channel.
        #expect(error(Self.account, rooms: "").contains("lobby"))
        #expect(error(Self.account, rooms: "rooms = [\"acme/general\", \"general\"]\n").contains("'general'"))
        #expect(error(Self.account, rooms: "rooms = [\"acme/a/b\"]\n").contains("acme/a/b"))
    }

    @Test func roomsSplitIntoWorkspaceAndChannel() {
        #expect(RESTOptions.splitRoom("acme/general").map { [$0.workspace, $0.channel] } == ["acme", "general"])
        #expect(RESTOptions.splitRoom("12/3").map { [$0.workspace, $0.channel] } == ["12", "3"])
        #expect(RESTOptions.splitRoom("general") == nil)
        #expect(RESTOptions.splitRoom("/general") == nil)
        #expect(RESTOptions.splitRoom("acme/") == nil)
    }

    /// Other transports may carry a `[bot.rest]` table without credentials (a shared template).
    @Test func onlyRESTBotsNeedCredentials() throws {
        let b = try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\n[bot.rest]\nbackfill = 5\n", path: Self.folder + "/bot.toml").bots[0]
        #expect(b.transport == "streamchat")
    }
}
