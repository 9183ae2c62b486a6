-- greeter.lua: welcome people when they join a room.
--
-- Config (bot.toml):
--   [bot.plugin.greeter]
--   welcome = "Welcome, {user}!"     -- {user} and {room} are filled in
--
-- `bot.config` is this plugin's table from the bot config; it is an empty
-- table when the config says nothing, so indexing it is always safe.

local welcome = bot.config.welcome or "Welcome, {user}!"

-- Fill {user}/{room} placeholders. A table as the gsub replacement looks each
-- placeholder name up; unknown names are left as they are.
local function render(template, ev)
  return (template:gsub("{(%w+)}", { user = ev.user, room = ev.room }))
end

bot.on("join", function(ev)
  -- Never greet ourselves (the bot joins rooms too).
  if ev.user == bot.name then return end
  bot.send(ev.room, render(welcome, ev))
end)
