-- A prelude extension (see prelude.lua): bot.command, and the dispatch of
-- commands with the built-in `help`. Loaded into a plugin's VM when it first
-- calls bot.command, or when the plugin that answers `help` first hears a
-- command addressed to the bot.
-- @NAME@ is the id of the host function NAME (filled in by Prelude.swift).
local bot, core, native = ...
local host = native.host
local type, error, fail = type, error, core.fail
local find, match = string.find, string.match
local sub, lower = core.sub, core.lower
local need_function, call, send, want, WANT = core.need_function, core.call, core.send, core.want, core.WANT
local words = native.words
local prefix, answers_help = core.prefix, host(@answers_help@)

-- Command handlers by lower-case name, and the commands that only some
-- roles may run ([bot.roles]).
local commands, guarded = {}, {}

-- bot.command(name, fn [, {help=, usage=, roles={...}}]): help and usage
-- feed the built-in `help` command; roles limit who may run it.
local command_info = host(@command_info@)
function bot.command(cmd, fn, opts)
  if type(cmd) ~= "string" or cmd == "" or find(cmd, "%s") then
    fail("bot.command: the name must be one word")
  end
  -- "!x" would answer only "!!x": the prefix is the bot's, not the command's.
  if prefix ~= "" and sub(cmd, 1, #prefix) == prefix then
    fail("bot.command: name the command without the prefix ('" .. sub(cmd, #prefix + 1) .. "', not '" .. cmd .. "')")
  end
  need_function(fn, "bot.command")
  cmd = lower(cmd)
  -- The host checks and keeps the options (for `help`), and says whether
  -- the command is guarded by roles.
  if command_info(cmd, opts) then guarded[cmd] = true end
  local list = commands[cmd]
  if not list then list = {}; commands[cmd] = list end
  list[#list + 1] = fn
  want(WANT.message)
end

-- "!cmd args", or addressed by name: "parley: cmd", "parley, cmd",
-- "@parley cmd". A native reads the line in one call: the command
-- lower-cased, its arguments without blanks around them, and whether the
-- bot was named. A sentence that merely starts with the bot's name ("max
-- said hi") is not addressed to it.
local parse_command = native.command

-- The built-in `help`: the first enabled plugin in load order answers it for the
-- whole bot (the host knows every plugin's commands), unless a plugin has
-- its own `help` command. The host hands that plugin every message addressed
-- to the bot, whether or not it listens to messages.
local help_text, may_run, log_warn = host(@help@), host(@may_run@), native.log_warn

core.commands = function(msg, text)
  local cmd, argtext, by_name = parse_command(text)
  if not cmd then return end
  local list = commands[cmd]
  if not list then
    if cmd == "help" and answers_help() then
      local reply = help_text(msg.user, match(argtext, "^(%S+)"), by_name)
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
    -- A fresh table each: a handler may change its arguments.
    call(list[i], msg, words(argtext))
  end
end
