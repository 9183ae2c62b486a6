-- A prelude extension (see prelude.lua): schedules, the world outside the
-- chat, and moderation. Loaded into a plugin's VM the first time it reaches
-- for bot.cron, bot.http, bot.webhook, bot.fit, bot.settings, bot.kick,
-- bot.mute or bot.delete.
-- @NAME@ is the id of the host function NAME (filled in by Prelude.swift).
local bot, core, native = ...
local host = native.host
local type, error, fail = type, error, core.fail
local need_function, add_timer, callbacks, call = core.need_function, core.add_timer, core.callbacks, core.call

-- bot.cron("0 9 * * mon-fri", fn [, opts]): a timer on a five-field
-- schedule, in the bot's time zone ([bot] timezone). The host parses it.
function bot.cron(spec, fn, opts)
  -- Checked here: a nil spec (a missing config key, say) would otherwise read as no schedule at all.
  if type(spec) ~= "string" then fail("bot.cron: the schedule must be a string, got " .. type(spec)) end
  -- Without a function it fires as a "timer" event and needs a name, as bot.after's.
  local id, err = add_timer("bot.cron", 0, fn or opts or {}, true, fn and opts, spec)
  return id, err
end

-- bot.http({url=, method=, headers=, body=, timeout=}, fn): the host checks
-- the request against [bot.http] and makes it once this handler committed;
-- fn(res) runs later as an event of its own, or fn(nil, reason) on failure.
-- The core's dispatcher calls fn from `callbacks` when the answer comes.
local http_request = host(@http_request@)
function bot.http(req, fn)
  need_function(fn, "bot.http")
  local id, err = http_request(req)
  if id then callbacks[id] = fn end
  return id, err
end

-- bot.settings(defaults): bot.config with the defaults filled in. A key the
-- plugin does not know (a typo) or a value of another type than its
-- default's is an error at load, at the plugin's line, rather than a
-- setting silently ignored or an error on every event it touches.
function bot.settings(defaults)
  if type(defaults) ~= "table" then fail("bot.settings: expected a table of defaults, got " .. type(defaults)) end
  local names = {}
  for k in pairs(defaults) do names[#names + 1] = tostring(k) end
  table.sort(names)
  local given, out = bot.config, {}
  for k, v in pairs(given) do
    local d = defaults[k]
    if d == nil then
      fail(("unknown setting %q; the settings are %s"):format(tostring(k), table.concat(names, ", ")))
    end
    if type(v) ~= type(d) then
      fail(("setting %s must be a %s (its default is %s), got a %s"):format(k, type(d), tostring(d), type(v)))
    end
  end
  for k, d in pairs(defaults) do
    local v = given[k]
    if v == nil then v = d end
    out[k] = v
  end
  return out
end

-- bot.fit(text): the text as this transport carries it (the host cuts it to
-- the limits, breaks up forbidden tokens), for text from outside the chat.
local fit = host(@fit@)
function bot.fit(text)
  local t = type(text)
  if t ~= "string" and t ~= "number" then fail("bot.fit: the text must be a string, got " .. t) end
  local fitted = fit(tostring(text))
  return fitted
end

-- Moderation: each returns true, or nil and why ("not supported by stomp").
-- The step is taken once this handler committed. An optional last argument
-- fn hears how it went, later, as an event of its own: fn(true) once the
-- server carried it out, fn(nil, reason) if it refused or the step was dropped.
local moderate = host(@moderate@)
local function step(verb, room, target, seconds, reason, fn)
  -- The reason is optional: bot.kick(room, user, fn) means no reason.
  if type(reason) == "function" and fn == nil then reason, fn = nil, reason end
  if fn ~= nil then need_function(fn, "bot." .. verb) end
  local id, err = moderate(verb, room, target, seconds, reason, fn ~= nil)
  if fn and id then callbacks[id] = fn end
  return id and true, err
end
-- Not `return step(...)`: see bot.after in prelude.lua.
function bot.kick(room, user, reason, fn) local ok, err = step("kick", room, user, nil, reason, fn); return ok, err end
function bot.mute(room, user, seconds, reason, fn) local ok, err = step("mute", room, user, seconds, reason, fn); return ok, err end
function bot.delete(room, id, fn) local ok, err = step("delete", room, id, nil, fn); return ok, err end

-- bot.webhook(path, fn): the host serves it at /hooks/BOT/PLUGIN/PATH;
-- fn(req) may return {status=, body=} (the default answer is 204).
local webhook_add, webhook_reply, hooks = host(@webhook_add@), host(@webhook_reply@), {}
function bot.webhook(path, fn)
  need_function(fn, "bot.webhook")
  hooks[webhook_add(path)] = fn
end

-- Entered through `call`, so the plugin's function and what it returns are metered.
-- A bad answer is found after the handler returned, so the error names the
-- line the handler was written at.
local defined_at = native.defined_at
local function respond(fn, req)
  local ok, err = webhook_reply(fn(req))
  if not ok then error(defined_at(fn) .. ": " .. err, 0) end
end
core.webhook = function(ev)
  local fn = hooks[ev.path]
  if fn then call(respond, fn, ev) end
end
