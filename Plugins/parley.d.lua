---@meta
-- LuaLS annotations for Parley's plugin API v1 (the global `bot`).
-- Point your editor's Lua language server at this folder (for example with
-- `"workspace.library": ["path/to/Plugins"]`) to get completion and checks.
-- This file is never loaded by Parley; it only describes what Parley provides.

---@class ParleyMessage
---@field room string Room the message was said in.
---@field user string Who said it.
---@field text string What was said.
---@field id string The server's id when the transport gives one, else one the bot assigned.
---@field time number Seconds since 1970 (server time when known).
---@field replayed? boolean true when the message was posted while the bot was away (disconnected or stopped) and reaches it through the transport's catch-up (REST); nil for live messages.
local ParleyMessage = {}

--- Send `text` to the message's room (same as `bot.send(msg.room, text)`).
---@param text string
---@return true|nil ok
---@return string? err why it was refused (quota, length, forbidden text)
function ParleyMessage:reply(text) end

---@class ParleyPresenceEvent
---@field room string
---@field user string
---@field time number

---@class ParleyTypingEvent
---@field room string
---@field user string
---@field on boolean true when the user started typing, false when they stopped

---@class ParleyRosterEntry
---@field user string
---@field online boolean

---@class ParleyRosterEvent
---@field room string
---@field users ParleyRosterEntry[]

---@class ParleyConnectionEvent
---@field state "connecting"|"online"|"offline"|"backoff"|"kicked"|"gave_up"

---@class ParleyCommandArgs: string[]
---@field raw string The text after the command name, as typed (spacing kept).

---@class ParleyHistoryOptions
---@field before? string Cursor: only messages older than this one.
---@field after? string Cursor: only messages newer than this one (pages forward, oldest first).
---@field limit? integer At most this many messages (1..100, default 30).

---@class ParleyHistoryMessage
---@field id string
---@field room string
---@field user string
---@field text string
---@field time number
---@field cursor string Opaque position of this message, for `before`/`after`.

---@class ParleyHistoryPage
---@field messages ParleyHistoryMessage[] Oldest first, newest last.
---@field before? string Pass as `before` for the previous page; nil when there is nothing older.
---@field after? string Pass as `after` for newer messages.

---@alias ParleyStateValue string|number|boolean|table

---@class ParleyState
local ParleyState = {}

--- This plugin's persistent value for `key`, or nil. Tables come back as fresh copies.
---@param key string
---@return ParleyStateValue|nil
function ParleyState.get(key) end

--- Store `value` (nil deletes). Keys <= 256 bytes, values <= 64 KiB serialised,
--- <= 1 MiB per plugin. The write takes effect only if the handler succeeds.
---@param key string
---@param value ParleyStateValue|nil
---@return true|nil ok
---@return string? err
function ParleyState.set(key, value) end

--- This plugin's keys that start with `prefix` (all of them without one),
--- sorted by their bytes; the handler's own writes included.
---@param prefix? string
---@return string[]
function ParleyState.keys(prefix) end

---@class ParleyLog
local ParleyLog = {}
--- Write to the bot log (at most 100 lines per event, each cut to 1 KiB).
---@param ... any
---@return true|nil ok
---@return string? err
function ParleyLog.info(...) end
---@param ... any
---@return true|nil ok
---@return string? err
function ParleyLog.warn(...) end
---@param ... any
---@return true|nil ok
---@return string? err
function ParleyLog.error(...) end

---@class ParleyTransport
---@field name string "streamchat", "socketio", "rest", "stomp", or "harness" in `parley plugin test`.
---@field rooms boolean More than one room per connection.
---@field typing boolean Typing indicators are shown and reported.
---@field roster boolean The server tells who is online.
---@field history boolean The server can page its own history.
---@field kick boolean The bot can remove a user from a room (`bot.kick`).
---@field mute boolean The bot can silence a user in a room for a while (`bot.mute`).
---@field delete boolean The bot can delete a message (`bot.delete`).
---@field max_characters? integer Longest message in characters (StreamChat: 300), checked per line.
---@field max_bytes? integer Longest message in bytes.
---@field forbidden string[] Text this transport can never carry (`bot.send` refuses it).
---@field controls boolean Whether sent text may hold control characters (StreamChat: false; `bot.send` refuses them).

---@class ParleyTimerOptions
---@field name? string Saves the timer in the journal under this name, so it survives a restart (unique per plugin: a new timer with the same name replaces the old one; names starting with "#" are reserved).
---@field data? ParleyStateValue Handed back as `ev.data` when it fires (a state value, <= 64 KiB serialised).

---@class ParleyTimerEvent
---@field id integer The timer's id in this run (ids start afresh after a restart; use the name across restarts).
---@field once boolean true for `bot.after`, false for `bot.every` and `bot.cron`.
---@field name? string The timer's name, when it has one.
---@field data? ParleyStateValue The `data` option.

---@class ParleyJSON
local ParleyJSON = {}

--- A value as JSON text. A table with keys exactly 1..n is an array, any
--- other table (the empty one too) an object. At most 1 MiB, nested 30 deep.
---@param value any
---@return string|nil text
---@return string? err
function ParleyJSON.encode(value) end

--- JSON text as a value; null becomes nil. At most 1 MiB, nested 30 deep.
---@param text string
---@return any value
---@return string? err
function ParleyJSON.decode(text) end

---@class ParleyHTTPRequest
---@field url string http or https; the host must be in `[bot.http] allow`.
---@field method? "GET"|"HEAD"|"POST"|"PUT"|"PATCH"|"DELETE"|"OPTIONS" Default GET.
---@field headers? table<string, string> Host, Content-Length, Transfer-Encoding, Connection and Upgrade are Parley's.
---@field body? string
---@field timeout? number Seconds, at most `[bot.http] timeout` (10).

---@class ParleyHTTPResponse
---@field status integer Any status: check it (404 and 500 are responses too).
---@field headers table<string, string> Names in lower case; repeated headers joined with ", ".
---@field body string At most `[bot.http] max_bytes` (1 MiB).

---@class ParleyWebhookRequest
---@field method string
---@field path string The path the plugin registered.
---@field query string The query string, without "?".
---@field headers table<string, string> Names in lower case; no Authorization or Cookie.
---@field body string

---@class ParleyWebhookReply
---@field status? integer 200 to 599 (default 200, or 204 without a body).
---@field body? string

---@class ParleyBot
---@field name string The bot's user name.
---@field prefix string The command prefix ("!" by default; "" when commands are addressed by name only).
---@field json ParleyJSON
---@field config table This plugin's table from the bot config (`[bot.plugin.NAME]`); empty when absent.
---@field transport ParleyTransport What the bot's transport can do.
---@field state ParleyState
---@field log ParleyLog
bot = {}

--- Register a handler for an event kind. `"timer"` handlers get the firings of
--- named timers that have no function of their own: made with only options,
--- or restored after a restart and not re-created while loading.
---@overload fun(kind: "message", fn: fun(msg: ParleyMessage))
---@overload fun(kind: "join"|"leave", fn: fun(ev: ParleyPresenceEvent))
---@overload fun(kind: "typing", fn: fun(ev: ParleyTypingEvent))
---@overload fun(kind: "roster", fn: fun(ev: ParleyRosterEvent))
---@overload fun(kind: "connection", fn: fun(ev: ParleyConnectionEvent))
---@overload fun(kind: "load", fn: fun(ev: table))
---@overload fun(kind: "timer", fn: fun(ev: ParleyTimerEvent))
---@param kind string
---@param fn function
function bot.on(kind, fn) end

--- Call `fn(msg, captures...)` for every message whose text matches the Lua pattern.
---@param pattern string
---@param fn fun(msg: ParleyMessage, ...: string|integer)
function bot.hear(pattern, fn) end

---@class ParleyCommandOptions
---@field help? string One line on what the command does, for `!help`.
---@field usage? string Its arguments, for `!help NAME` ("USER [REASON]").
---@field roles? string[] Only users with one of these roles ([bot.roles]) may run it.

--- Call `fn(msg, args)` for "!name args" (the configured prefix) or "botname: name args".
--- Command names are matched case-insensitively. `!help` (built in) lists them.
---@param name string
---@param fn fun(msg: ParleyMessage, args: ParleyCommandArgs)
---@param opts? ParleyCommandOptions
function bot.command(name, fn, opts) end

--- The roles `[bot.roles]` gives a user, sorted (empty when none).
---@param user string
---@return string[]
function bot.roles(user) end

--- Send a message. At most 20 per event; longer than the transport's limit
--- (else 4096 bytes) or containing text the transport forbids is refused.
---@param room string
---@param text string
---@return true|nil ok
---@return string? err
function bot.send(room, text) end

--- `text` as the transport carries it, for text from outside the chat: forbidden
--- tokens broken up (`MSG::` → `MSG:`), control characters it cannot carry made
--- spaces, each line cut to its character limit and the whole to `message_bytes`.
---@param text string
---@return string
function bot.fit(text) end

--- `bot.config` with `defaults` filled in; a key not among them, or a value of
--- another type than its default's, is an error when the plugin loads.
---@generic T: table
---@param defaults T
---@return T
function bot.settings(defaults) end

--- Show or hide the bot's typing indicator (debounced; stops by itself after 5 s or when the bot sends).
---@param room string
---@param on? boolean default true
---@return true|nil ok
---@return string? err for a room the bot is not in
function bot.typing(room, on) end

--- A page of the room's history (what the bot saw and sent).
---@param room string
---@param opts? ParleyHistoryOptions
---@return ParleyHistoryPage|nil page
---@return string? err
function bot.history(room, opts) end

--- Who is in the room, as far as the bot knows.
---@param room string
---@return ParleyRosterEntry[]
function bot.roster(room) end

--- Run `fn(ev)` once after `seconds` (>= 0.1). At most 100 timers per plugin.
---
--- Timers and restarts (with a journal). A timer survives a restart when it
--- has a name:
--- * Timers made while the plugin loads (top level or a `load` handler) are
---   named by their order: the 1st, 2nd, ... such call. After a restart the
---   same call (same kind, same seconds) re-attaches to the saved timer and
---   keeps its due time instead of starting over; a saved one the code no
---   longer makes is dropped.
--- * A timer made by a handler survives only with `opts.name`. After a
---   restart nobody holds its function any more, so it fires as a `timer`
---   event (`bot.on("timer", function(ev) ... end)` with `ev.name`, `ev.data`)
---   unless the plugin re-creates it by name while loading.
--- A timer that came due while the bot was down fires once (an every timer
--- then keeps its phase). Creating, cancelling and firing a saved timer
--- is part of the handler's transaction, like state writes.
---@overload fun(seconds: number, opts: ParleyTimerOptions): integer|nil, string?
---@param seconds number
---@param fn fun(ev: ParleyTimerEvent)
---@param opts? ParleyTimerOptions
---@return integer|nil id
---@return string? err
function bot.after(seconds, fn, opts) end

--- Run `fn(ev)` every `seconds` (>= 0.1) until cancelled. Survives restarts
--- like `bot.after`.
---@overload fun(seconds: number, opts: ParleyTimerOptions): integer|nil, string?
---@param seconds number
---@param fn fun(ev: ParleyTimerEvent)
---@param opts? ParleyTimerOptions
---@return integer|nil id
---@return string? err
function bot.every(seconds, fn, opts) end

--- Run `fn(ev)` on a five-field cron schedule ("0 9 * * mon-fri") in the
--- bot's time zone (`timezone`, default UTC). A missed slot fires once after
--- a restart. A bad schedule is an error naming the field.
---@overload fun(spec: string, opts: ParleyTimerOptions): integer|nil, string?
---@param spec string
---@param fn fun(ev: ParleyTimerEvent)
---@param opts? ParleyTimerOptions
---@return integer|nil id
---@return string? err
function bot.cron(spec, fn, opts) end

--- Ask for an HTTP request, made once this handler committed. `fn(res)` runs
--- later as an event of its own, or `fn(nil, reason)` when the request failed.
--- Returns the request's id, or nil and why when it is refused at once.
---@param req ParleyHTTPRequest
---@param fn fun(res: ParleyHTTPResponse|nil, reason: string?)
---@return integer|nil id
---@return string? err
function bot.http(req, fn) end

--- Serve `/hooks/BOT/PLUGIN/PATH` on `parley run --http`: `fn(req)` runs for
--- each request; return nothing (204) or {status=, body=}. The answer is
--- sent once the handler's transaction is durable.
---@param path string
---@param fn fun(req: ParleyWebhookRequest): ParleyWebhookReply|nil
function bot.webhook(path, fn) end

--- Remove `user` from `room` once this handler committed (they may come back).
---@param room string
---@param user string
---@param reason? string
---@param fn? fun(ok: true|nil, reason: string?) Told later how the server answered.
---@return true|nil ok
---@return string? err "not supported by <transport>" where the chat cannot.
---@overload fun(room: string, user: string, fn: fun(ok: true|nil, reason: string?)): true|nil, string?
function bot.kick(room, user, reason, fn) end

--- Silence `user` in `room` for `seconds` (1..604800) once this handler committed.
---@param room string
---@param user string
---@param seconds number
---@param reason? string
---@param fn? fun(ok: true|nil, reason: string?) Told later how the server answered.
---@return true|nil ok
---@return string? err
---@overload fun(room: string, user: string, seconds: number, fn: fun(ok: true|nil, reason: string?)): true|nil, string?
function bot.mute(room, user, seconds, reason, fn) end

--- Delete the message `id` (`msg.id`) from `room` once this handler committed.
---@param room string
---@param id string
---@param fn? fun(ok: true|nil, reason: string?) Told later how the server answered.
---@return true|nil ok
---@return string? err
function bot.delete(room, id, fn) end

--- Cancel a timer by id, or by name (also a saved one restored after a
--- restart). Returns false when there was no such live timer.
---@param id integer|string
---@return boolean
function bot.cancel(id) end

--- Leave the chat cleanly now and come back after `seconds` (1..86400): the
--- runtime disconnects (StreamChat sends LEAVE) and reconnects later. Used by
--- the demo's simulated people; takes effect only if the handler succeeds.
---@param seconds number
---@return true
function bot.away(seconds) end
