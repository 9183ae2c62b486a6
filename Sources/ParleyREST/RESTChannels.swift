import ParleyCore
import ParleyWire

/// A configured room resolved on the server: `workspace/channel` → ids.
struct RESTChannel: Sendable, Equatable {
    var room: String
    var workspaceId: String
    var channelId: String
    var name: String

    /// `{api_prefix}/workspaces/{wid}/channels/{channel}/chats`, the channel by name or id as configured.
    func chatsPath(_ options: RESTOptions) -> String {
        let channel = options.channelInPath == .id ? channelId : name
        return options.apiPrefix + "/workspaces/\(workspaceId.percentEncoded)/channels/"
            + channel.percentEncoded + "/chats"
    }

    func namespace(_ options: RESTOptions) -> String {
        options.namespaceTemplate.replacingOccurrences(of: "{channel_id}", with: channelId)
    }
}

/// Finds the bot's rooms among its workspaces and their channels, creating
/// missing channels when `create_channels` says so. Runs on every connect:
/// a channel renamed or re-created on the server is found again.
enum RESTChannels {
    static func resolve(rooms: [String], client: RESTClient) async throws -> [RESTChannel] {
        let options = client.options
        let workspaces = try await client.call(.GET, options.apiPrefix + "/workspaces")
        guard let wlist = workspaces.array else {
            throw TransportError(.protocolViolation, "GET \(options.apiPrefix)/workspaces: not a list")
        }
        var channelsOf: [String: [JSONValue]] = [:]
        var out: [RESTChannel] = []
        for room in rooms {
            guard let (wname, cname) = RESTOptions.splitRoom(room) else {
                throw TransportError(.refused, "room '\(room)' is not workspace/channel")
            }
            // A workspace by name, or by id.
            guard let w = wlist.first(where: { $0["name"]?.string == wname })
                    ?? wlist.first(where: { RESTChat.idText($0["workspace_id"]) == wname }),
                  let wid = RESTChat.idText(w["workspace_id"]) else {
                let names = wlist.compactMap { $0["name"]?.string }.sorted()
                throw TransportError(.refused, "room '\(room)': the bot is in no workspace '\(wname)' (it is in: \(names.joined(separator: ", ")))")
            }
            let listPath = options.apiPrefix + "/workspaces/\(wid.percentEncoded)/channels"
            if channelsOf[wid] == nil {
                guard let list = try await client.call(.GET, listPath).array else {
                    throw TransportError(.protocolViolation, "GET \(listPath): not a list")
                }
                channelsOf[wid] = list
            }
            var channel = channelsOf[wid]!.first { $0["name"]?.string == cname }
            if channel == nil {
                guard options.createChannels else {
                    throw TransportError(.refused, "room '\(room)': workspace '\(wname)' has no channel '\(cname)' (set rest.create_channels = true to create it)")
                }
                channel = try await client.call(.POST, listPath, body: .json(.object([("name", .string(cname))])))
                channelsOf[wid]!.append(channel!)
            }
            guard let cid = RESTChat.idText(channel?["channel_id"]) else {
                throw TransportError(.protocolViolation, "room '\(room)': the channel has no channel_id")
            }
            // One channel under two spellings (by name and by id) would be joined twice, and the server refuses that.
            if let same = out.first(where: { $0.channelId == cid }) {
                throw TransportError(.refused, "rooms '\(same.room)' and '\(room)' are the same channel (id \(cid)): list it once")
            }
            out.append(RESTChannel(room: room, workspaceId: wid, channelId: cid, name: cname))
        }
        return out
    }
}
