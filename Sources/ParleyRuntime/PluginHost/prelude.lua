-- The plugin API's prelude: the trusted Lua that builds the global `bot`
-- inside each plugin VM and returns the host's two dispatchers (one for
-- messages, one for every other kind of event). Compiled once per process
-- into stripped bytecode (see Prelude.swift, which fills in @WANT@).
local native, setup = ...
local type, error, tostring, pairs = type, error, tostring, pairs
local find, sub, lower, match, gmatch = string.find, string.sub, string.lower, string.match, string.gmatch

local KINDS = { message = true, join = true, leave = true, typing = true,
                roster = true, connection = true, load = true, timer = true }
local handlers = {}
for kind in pairs(KINDS) do handlers[kind] = {} end
-- `callbacks`: the functions of timers and of HTTP requests waiting for
-- their answer, by id (the host hands out ids from one counter).
local hears, commands, ncommands, callbacks = {}, {}, 0, {}
-- Commands that only some roles may run ([bot.roles]), by name.
local guarded = {}
-- Counts kept as handlers register, so the message path reads a number
-- instead of taking two lengths on every line a room hears.
local on_message, non_message, nhears = handlers.message, 0, 0
-- The kinds the host may skip while nothing listens (EventInterest in Swift):
-- registering a handler tells the host, which then delivers that kind.
local WANT, want = { @WANT@ }, native.want

-- Plugin functions are entered through `call` (or `hear`, below, which enters
-- them the same way), never called directly: the budget hook runs only while
-- plugin code does (see budget.c), so this file's own routing is not metered
-- instruction by instruction. A plugin function
-- called here without `call` would run with no budget at all.
local call = native.call

local name = setup.name
local lname = lower(name)
local prefix = setup.prefix or "!"
local send = native.send

-- Transports that count characters (StreamChat: 300) get a check in front of
-- the native send. Only texts with more bytes than allowed characters can be
-- too long, so only those pay for the grapheme count in the host.
local transport = setup.transport or {}
local max_chars = transport.max_characters
if max_chars then
  local raw_send, check = send, native.check_length
  send = function(room, text)
    if type(text) == "string" and #text > max_chars then
      local ok, err = check(text)
      if not ok then return nil, err end
    end
    return raw_send(room, text)
  end
end

local Message = {
  __index = { reply = function(self, text) return send(self.room, text) end },
  __metatable = "locked",
}

local function need_function(fn, who)
  if type(fn) ~= "function" then
    error(who .. ": expected a function, got " .. type(fn), 3)
  end
end

local bot = {
  name = name,
  config = setup.config or {},
  transport = transport,
  away = native.away,
  send = send,
  typing = native.typing,
  history = native.history,
  roster = native.roster,
  cancel = native.timer_cancel,
  state = { get = native.state_get, set = native.state_set },
  json = { encode = native.json_encode, decode = native.json_decode },
  log = { info = native.log_info, warn = native.log_warn, error = native.log_error },
}

function bot.on(kind, fn)
  if type(kind) ~= "string" or not KINDS[kind] then
    error("bot.on: unknown event kind '" .. tostring(kind) ..
          "' (expected message, join, leave, typing, roster, connection, load or timer)", 2)
  end
  need_function(fn, "bot.on")
  local list = handlers[kind]
  list[#list + 1] = fn
  if kind == "message" then non_message = #list end
  if WANT[kind] then want(WANT[kind]) end
end

function bot.hear(pattern, fn)
  if type(pattern) ~= "string" then error("bot.hear: the pattern must be a string", 2) end
  need_function(fn, "bot.hear")
  nhears = nhears + 1
  hears[nhears] = { pattern, fn }
  want(WANT.message)
end

-- bot.command(name, fn [, {help=, usage=, roles={...}}]): help and usage
-- feed the built-in `help` command; roles limit who may run it.
local command_info = native.command_info
function bot.command(cmd, fn, opts)
  if type(cmd) ~= "string" or cmd == "" or find(cmd, "%s") then
    error("bot.command: the name must be one word", 2)
  end
  need_function(fn, "bot.command")
  cmd = lower(cmd)
  -- The host checks and keeps the options (for `help`), and says whether
  -- the command is guarded by roles.
  if command_info(cmd, opts) then guarded[cmd] = true end
  local list = commands[cmd]
  if not list then list = {}; commands[cmd] = list end
  list[#list + 1] = fn
  ncommands = ncommands + 1
  want(WANT.message)
end

-- bot.roles(user): the roles [bot.roles] gives that user, as a sorted list.
bot.roles = native.roles

-- bot.after(seconds, fn [, opts]) or bot.after(seconds, opts): a timer with
-- only options (it needs a name) fires as a "timer" event.
local timer_add = native.timer_add
local function add_timer(who, seconds, fn, again, opts)
  if type(fn) == "table" and opts == nil then
    fn, opts = nil, fn
    if opts.name == nil then error(who .. ": a timer without a function needs a name", 2) end
  else
    need_function(fn, who)
    if opts ~= nil and type(opts) ~= "table" then error(who .. ": the options must be a table", 2) end
  end
  local id, err = timer_add(seconds, again, opts)
  if id then callbacks[id] = fn end
  return id, err
end
function bot.after(seconds, fn, opts) return add_timer("bot.after", seconds, fn, false, opts) end
function bot.every(seconds, fn, opts) return add_timer("bot.every", seconds, fn, true, opts) end

-- bot.cron("0 9 * * mon-fri", fn [, opts]): a timer on a five-field
-- schedule, in the bot's time zone ([bot] timezone). The host parses it.
function bot.cron(spec, fn, opts)
  if type(fn) == "table" and opts == nil then fn, opts = nil, fn end
  if opts ~= nil and type(opts) ~= "table" then error("bot.cron: the options must be a table", 2) end
  opts = opts or {}
  local o = { cron = spec, name = opts.name, data = opts.data }
  -- Without a function it fires as a "timer" event and needs a name, as bot.after's.
  return add_timer("bot.cron", 0, fn or o, true, fn and o or nil)
end

-- bot.http({url=, method=, headers=, body=, timeout=}, fn): the host checks
-- the request against [bot.http] and makes it once this handler committed;
-- fn(res) runs later as an event of its own, or fn(nil, reason) on failure.
local http_request = native.http_request
function bot.http(req, fn)
  need_function(fn, "bot.http")
  local id, err = http_request(req)
  if id then callbacks[id] = fn end
  return id, err
end

-- Moderation: each returns true, or nil and why ("not supported by stomp").
-- The step is taken once this handler committed.
local moderate = native.moderate
function bot.kick(room, user, reason) return moderate("kick", room, user, nil, reason) end
function bot.mute(room, user, seconds, reason) return moderate("mute", room, user, seconds, reason) end
function bot.delete(room, id) return moderate("delete", room, id) end

-- bot.webhook(path, fn): the host serves it at /hooks/BOT/PLUGIN/PATH;
-- fn(req) may return {status=, body=} (the default answer is 204).
local webhook_add, webhook_reply, hooks = native.webhook_add, native.webhook_reply, {}
function bot.webhook(path, fn)
  need_function(fn, "bot.webhook")
  hooks[webhook_add(path)] = fn
end
-- Entered through `call`, so the plugin's function and what it returns are metered.
local function respond(fn, req) webhook_reply(fn(req)) end

_G.bot = bot

-- bot.hear: native.hear(text, pattern, fn, msg) searches the text as
-- string.find does (the same budgeted matcher) and on a match enters
-- fn(msg, captures...) as `call` does, in one C call.
local hear = native.hear

-- "!cmd args", or addressed by name: "parley: cmd", "parley, cmd", "@parley cmd".
local function parse_command(text)
  local rest
  if prefix ~= "" and sub(text, 1, #prefix) == prefix then
    rest = sub(text, #prefix + 1)
  else
    local t = match(text, "^%s*@?(.*)$")
    if lower(sub(t, 1, #name)) == lname then
      local after = sub(t, #name + 1)
      rest = match(after, "^[:,]?%s+(.*)$") or match(after, "^[:,](%S.*)$")
    end
  end
  if not rest then return nil end
  return match(rest, "^(%S+)%s*(.-)%s*$")
end

-- The built-in `help`: the first plugin in load order answers it for the
-- whole bot (the host knows every plugin's commands), unless a plugin has
-- its own `help` command. The host hands that plugin every message addressed
-- to the bot, whether or not it listens to messages.
local answers_help, help_text, may_run = setup.answers_help, native.help, native.may_run
local log_warn = native.log_warn

local function run_commands(msg, text)
  local cmd, argtext = parse_command(text)
  if not cmd then return end
  cmd = lower(cmd)
  local list = commands[cmd]
  if not list then
    if cmd == "help" and answers_help then
      local reply = help_text(msg.user, match(argtext, "^(%S+)"))
      if reply then send(msg.room, reply) end
    end
    return
  end
  if guarded[cmd] then
    -- The host decides (it knows the roles); the refusal is said at most
    -- once a minute per user and command, the audit line always logged.
    local ok, reply, audit = may_run(msg.user, cmd)
    if not ok then
      log_warn(audit)
      if reply then send(msg.room, reply) end
      return
    end
  end
  for i = 1, #list do
    local args, n = { raw = argtext }, 0
    for word in gmatch(argtext, "%S+") do n = n + 1; args[n] = word end
    call(list[i], msg, args)
  end
end

local setmetatable = native.setmetatable
local function forget(drops) for i = 1, #drops do callbacks[drops[i]] = nil end end

-- The host's two entry points: the dispatcher for every kind but messages,
-- and the message dispatcher. Messages are the busiest path (every line a
-- room hears reaches every plugin that listens), so the host passes their
-- fields as arguments and the table is built here, by Lua's own constructor.
-- `drops`: ids of timers that will not fire again, whose functions can go.
return function(kind, ev, drops)
  if drops then forget(drops) end
  if kind == "timer" then
    -- A timer's own function, else (a timer made without one, or restored
    -- after a restart and not re-created) the "timer" handlers.
    local fn = callbacks[ev.id]
    if fn then
      if ev.once then callbacks[ev.id] = nil end
      call(fn, ev)
    else
      local list = handlers.timer
      for i = 1, #list do call(list[i], ev) end
    end
  elseif kind == "http" then
    local fn = callbacks[ev.id]
    callbacks[ev.id] = nil
    if fn then
      if ev.error then call(fn, nil, ev.error)
      else call(fn, { status = ev.status, headers = ev.headers, body = ev.body }) end
    end
  elseif kind == "webhook" then
    local fn = hooks[ev.path]
    if fn then call(respond, fn, ev) end
  else
    local list = handlers[kind]
    if list then for i = 1, #list do call(list[i], ev) end end
  end
end, function(room, user, text, id, time, replayed, drops)
  if drops then forget(drops) end
  local msg = setmetatable({ room = room, user = user, text = text, id = id, time = time }, Message)
  if replayed then msg.replayed = true end
  for i = 1, non_message do call(on_message[i], msg) end
  for i = 1, nhears do
    local h = hears[i]
    hear(text, h[1], h[2], msg)
  end
  if ncommands > 0 or answers_help then run_commands(msg, text) end
end
