import Foundation
import ParleyCore
import ParleyStore

/// The bot's reach beyond its chat: its plugins' requests out (`bot.http`)
/// and requests in (`bot.webhook`), both answered on the bot's loop.
extension BotRunner {
    /// Makes a committed request off the loop; its answer comes back to the
    /// plugin as an event. A request still out when the bot stops is dropped
    /// with it (its callback is a Lua function, which no journal can keep).
    func startRequest(_ call: HTTPCall, plugin: String) {
        let options = spec.options.http
        Task {
            let outcome = await HTTPFetch.run(call, options: options)
            if case .failed(let why) = outcome {
                log(.warn, "http \(call.method) \(Redactor.url(call.url)) failed: \(why)", plugin: plugin)
            }
            await answered(plugin: plugin, id: call.id, outcome)
        }
    }

    private func answered(plugin: String, id: Int64, _ outcome: HTTPOutcome) async {
        guard let host, failure == nil, !closing else { return }
        do {
            let (actions, due) = try onLoop(host) { try $0.answer(plugin: plugin, id: id, outcome) }
            accept(actions)
            rescheduleTimers(due)
        } catch {
            journalFailed(error)
        }
    }

    /// Hands a webhook request to its plugin. The answer is given once the
    /// handler's transaction is durable, so a 2xx means its sends will go out.
    public func webhook(plugin: String, _ req: WebhookRequest) async -> WebhookReply {
        guard let host, failure == nil, !closing else { return WebhookReply(status: 503, body: "the bot is not running\n") }
        do {
            let (actions, reply, due) = try onLoop(host) { try $0.webhook(plugin: plugin, req) }
            accept(actions)
            rescheduleTimers(due)
            if host.pipelined, !onLoop(host, { $0.isDurable }) {
                // The continuation's body runs here, on the bot's loop.
                let failed: StoreError? = await withCheckedContinuation { done in
                    host.onLoopThread { $0.whenDurable { done.resume(returning: $0) } }
                }
                if let failed {
                    journalFailed(failed)
                    return WebhookReply(status: 503, body: "the bot's journal failed\n")
                }
            }
            return reply
        } catch {
            journalFailed(error)
            return WebhookReply(status: 503, body: "the bot's journal failed\n")
        }
    }

    /// Whether a plugin of this bot serves the path (else the server answers 404, or 503 for a disabled plugin).
    public func servesWebhook(plugin: String, path: String) -> WebhookRoute {
        host.map { onLoop($0) { $0.servesWebhook(plugin: plugin, path: path) } } ?? .notFound
    }
}
