-- greeter.lua: welcome people when they join a room, and welcome them back.
--
-- Config (bot.toml):
--   [bot.plugin.greeter]
--   welcome       = "Welcome, {user}!"       -- first visit; {user} and {room} are filled in
--   welcome_back  = "Welcome back, {user}!"  -- someone seen in this room before
--   regreet_after = 600                      -- seconds: who left less than this ago
--                                            -- (a dropped connection, a quick rejoin)
--                                            -- is not greeted again
--
-- bot.settings fills in the defaults below for what the config leaves out,
-- and refuses a misspelt key ("welcom") or a value of the wrong type
-- (regreet_after = "600") when the plugin loads, not when someone joins.
--
-- What it remembers, in bot.state (so it survives restarts):
--   "seen:ROOM:USER" = the last time USER joined or left ROOM (os.time()).
-- Joins and leaves both count, so someone who was in the room a minute ago
-- is never greeted twice, even if the bot missed their leave.

local settings = bot.settings({
  welcome = "Welcome, {user}!",
  welcome_back = "Welcome back, {user}!",
  regreet_after = 600,
})
local welcome, welcome_back, regreet_after = settings.welcome, settings.welcome_back, settings.regreet_after

-- Fill {user}/{room} placeholders. A table as the gsub replacement looks each
-- placeholder name up; unknown names are left as they are.
local function render(template, ev)
  return (template:gsub("{(%w+)}", { user = ev.user, room = ev.room }))
end

-- State keys are at most 256 bytes of UTF-8: a very long room or user name
-- is cut, between characters (two such names that share their first 250
-- bytes share a memory).
local function key(ev)
  local k = "seen:" .. ev.room .. ":" .. ev.user
  if #k <= 256 then return k end
  local cut = 256
  -- Back off continuation bytes (10xxxxxx), so no character is cut in half.
  while cut > 0 and (k:byte(cut + 1) or 0) & 0xC0 == 0x80 do cut = cut - 1 end
  return k:sub(1, cut)
end

bot.on("join", function(ev)
  -- The bot's own joins never reach plugins, so no self check is needed.
  -- os.time() is the bot's clock (virtual in `parley plugin test`).
  local now, last = os.time(), bot.state.get(key(ev))
  bot.state.set(key(ev), now)
  if last == nil then
    bot.send(ev.room, render(welcome, ev))
  elseif now - last >= regreet_after then
    bot.send(ev.room, render(welcome_back, ev))
  end
  -- Otherwise they were here moments ago: say nothing.
end)

bot.on("leave", function(ev)
  bot.state.set(key(ev), os.time())
end)
