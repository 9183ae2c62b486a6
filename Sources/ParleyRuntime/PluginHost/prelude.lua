-- The plugin API's prelude: the trusted Lua that builds the global `bot`
-- inside each plugin VM and returns the host's two dispatchers (one for
-- messages, one for every other kind of event). Compiled once per process
-- into stripped bytecode (see Prelude.swift, which fills in @WANT@).
--
-- What most plugins use is here. The rest is in two extensions, loaded into
-- a VM the first time its plugin reaches for them (see LAZY below), so a
-- fleet of simulated people does not carry them: prelude_commands.lua
-- (bot.command and the built-in help) and prelude_extras.lua (bot.cron,
-- bot.http, bot.webhook, bot.fit, bot.settings, bot.kick, bot.mute, bot.delete).
local native, setup = ...
local type, tostring, rawget = type, tostring, rawget
-- A check here fails at the plugin's line that called the API, as a host
-- function's error does (the prelude has no lines of its own to name).
local fail = native.raise
-- The stock sub and lower: the sandbox then wraps them to charge plugin
-- calls by size, which these short strings never need.
local sub, lower = string.sub, string.lower

-- Handler lists by event kind, made as the first handler of a kind
-- registers: most plugins listen to one or two kinds.
local handlers = {}
-- `callbacks`: the functions of timers and of HTTP requests waiting for
-- their answer, by id (the host hands out ids from one counter).
local hears, callbacks = {}, {}
-- Counts kept as handlers register, so the message path reads a number
-- instead of taking two lengths on every line a room hears.
local on_message, non_message, nhears = {}, 0, 0
handlers.message = on_message
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
local prefix = setup.prefix or "!"
-- A C native; on transports that count characters (StreamChat: 300) it
-- asks the host to count those of a text with more bytes than that.
local send = native.send
local transport = setup.transport or {}

local Message = {
  __index = { reply = function(self, text)
    -- msg.reply("hi") passes "hi" as self: say so rather than "bad argument #1".
    if type(self) ~= "table" then fail("msg:reply(text) is called with a colon, not msg.reply(text)") end
    local t = type(text)
    if t ~= "string" and t ~= "number" then fail("msg:reply: the text must be a string, got " .. t) end
    local ok, err = send(self.room, text)
    return ok, err
  end },
  __metatable = "locked",
}

local setmetatable = native.setmetatable

local function need_function(fn, who)
  if type(fn) ~= "function" then
    fail(who .. ": expected a function, got " .. type(fn))
  end
end

local bot = {
  name = name,
  prefix = prefix,
  config = setup.config or {},
  transport = transport,
  away = native.away,
  send = send,
  typing = native.typing,
  history = native.history,
  roster = native.roster,
  cancel = native.timer_cancel,
}

function bot.on(kind, fn)
  if not (WANT[kind] or kind == "load" or kind == "timer") then
    fail("bot.on: unknown event kind '" .. tostring(kind) ..
         "' (expected message, join, leave, typing, roster, connection, load or timer)")
  end
  need_function(fn, "bot.on")
  local list = handlers[kind]
  if not list then list = {}; handlers[kind] = list end
  list[#list + 1] = fn
  if kind == "message" then non_message = #list end
  if WANT[kind] then want(WANT[kind]) end
end

local pattern_problem = native.pattern_problem
function bot.hear(pattern, fn)
  if type(pattern) ~= "string" then fail("bot.hear: the pattern must be a string") end
  -- Checked now: the matcher would only find it on each message that reaches it.
  local problem = pattern_problem(pattern)
  if problem then fail("bot.hear: " .. problem) end
  need_function(fn, "bot.hear")
  nhears = nhears + 1
  hears[nhears] = { pattern, fn }
  want(WANT.message)
end

-- bot.roles(user): the roles [bot.roles] gives that user, as a sorted list.
bot.roles = native.roles

-- bot.after(seconds, fn [, opts]) or bot.after(seconds, opts): a timer with
-- only options (it needs a name) fires as a "timer" event.
local timer_add = native.timer_add
-- `cron` is bot.cron's schedule, which stands in for the interval.
local function add_timer(who, seconds, fn, again, opts, cron)
  if type(fn) == "table" and opts == nil then
    fn, opts = nil, fn
    if opts.name == nil then fail(who .. ": a timer without a function needs a name") end
  else
    need_function(fn, who)
    if opts ~= nil and type(opts) ~= "table" then fail(who .. ": the options must be a table") end
  end
  local id, err = timer_add(seconds, again, opts, cron)
  if id then callbacks[id] = fn end
  return id, err
end
-- The API's functions never end in `return helper(...)`: a tail call would
-- take their frame, and a failure could then not tell whether the plugin's
-- own `return bot.after(...)` took the plugin's line (see raise_at_plugin).
function bot.after(seconds, fn, opts) local id, err = add_timer("bot.after", seconds, fn, false, opts); return id, err end
function bot.every(seconds, fn, opts) local id, err = add_timer("bot.every", seconds, fn, true, opts); return id, err end

-- What the extensions share with this file. Not the `native` table: after
-- setup it is garbage, and with it a closure for every host function. The
-- extensions make closures for their own host functions by id (`host`), so
-- a VM that never loads them holds neither the closures nor their names.
-- The natives only extensions use come with each one from load_chunk.
local core = {
  fail = fail, need_function = need_function, add_timer = add_timer, callbacks = callbacks,
  call = call, send = send, want = want, WANT = WANT,
  prefix = prefix, sub = sub, lower = lower,
}

-- The extensions, by the fields of `bot` they define. Each is host-made
-- bytecode the host hands over by name (native.extension); native.load_chunk
-- loads it. Neither is reachable from plugin code, and no text a plugin
-- made ever reaches load_chunk.
local LAZY = { command = "commands", cron = "extras", http = "extras", webhook = "extras",
               kick = "extras", mute = "extras", delete = "extras", fit = "extras", settings = "extras" }
local loaded = {}
local extension, load_chunk = native.extension, native.load_chunk
local function extend(which)
  if loaded[which] then return end
  loaded[which] = true
  local chunk, natives = load_chunk(extension(which))
  chunk(bot, core, natives)
end
-- bot.state, bot.json and bot.log are made by C at first use (api_table):
-- three tables, their closures and their field names that a fleet of
-- simulated people never reaches.
local api_table = native.api_table
setmetatable(bot, {
  __index = function(t, k)
    local which = LAZY[k]
    if which then
      extend(which)
      return rawget(t, k)
    end
    return api_table(t, k)
  end,
  __metatable = "locked",
})

_G.bot = bot

-- bot.hear: native.hear(text, pattern, fn, msg) searches the text as
-- string.find does (the same budgeted matcher) and on a match enters
-- fn(msg, captures...) as `call` does, in one C call.
local hear = native.hear

-- The plugin that answers `help` loads the commands extension on the first
-- line that is a command for this bot ("!cmd", "parley: cmd"). The host
-- reads the line by bot.command's own rule and passes the answer as
-- `is_command`. The host also says which plugin answers (the first enabled
-- one): asked only for such lines.
local answers_help = native.answers_help

local function forget(drops) for i = 1, #drops do callbacks[drops[i]] = nil end end

-- The host's two entry points: the dispatcher for every kind but messages,
-- and the message dispatcher. Messages are the busiest path (every line a
-- room hears reaches every plugin that listens), so the host passes their
-- fields as arguments and the table is built here, by Lua's own constructor.
-- `drops`: ids of timers that will not fire again, whose functions can go.
-- A timer that fired into no function and no handler: the host says so
-- once a timer (the usual cause is a restart, which no function survives).
local unheard, log_warn = native.timer_unheard, native.log_warn
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
      if list then
        for i = 1, #list do call(list[i], ev) end
      else
        local why = unheard(ev.id, ev.name)
        if why then log_warn(why) end
      end
    end
  elseif kind == "http" or kind == "moderation" then
    -- The answer to bot.http, or the outcome of a bot.kick/mute/delete given a function.
    local fn = callbacks[ev.id]
    callbacks[ev.id] = nil
    if fn then
      if ev.error then call(fn, nil, ev.error)
      elseif kind == "moderation" then call(fn, true)
      else call(fn, { status = ev.status, headers = ev.headers, body = ev.body }) end
    end
  elseif kind == "webhook" then
    -- Only plugins that called bot.webhook get these: the extension is there.
    core.webhook(ev)
  else
    local list = handlers[kind]
    if list then for i = 1, #list do call(list[i], ev) end end
  end
end, function(room, user, text, id, time, replayed, is_command, drops)
  if drops then forget(drops) end
  local msg = setmetatable({ room = room, user = user, text = text, id = id, time = time }, Message)
  if replayed then msg.replayed = true end
  for i = 1, non_message do call(on_message[i], msg) end
  for i = 1, nhears do
    local h = hears[i]
    hear(text, h[1], h[2], msg)
  end
  -- Commands: once bot.command was called, or for the plugin that answers
  -- `help`, on the first command addressed to the bot.
  local commands = core.commands
  if commands then
    commands(msg, text)
  elseif is_command and answers_help() then
    extend("commands")
    core.commands(msg, text)
  end
end
