-- persona.lua: a simulated person for `parley demo` and load tests. Each
-- simulated user is one bot running this plugin.
--
-- Config (bot.toml):
--   [bot.plugin.persona]
--   style = "chatty"   -- "chatty", "shy", "troll", or "mixed" (each bot picks one:
--                      -- mostly chatty, some shy, one in ten a troll)
--   room  = "lobby"    -- where it talks
--   lines = [...]      -- optional: what it says, instead of the style's own lines;
--                      -- "{other}" becomes someone who spoke lately
--   pace  = 1          -- waits between lines are multiplied by this (2: half as chatty)
--   away  = 0.05       -- optional: chance of stepping out after a line, instead of the style's
--
-- What a persona does, all on timers with random delays (math.random is
-- seeded per bot, so a run with the same seed says the same things):
--   * says a line every so often, showing "typing..." first for a time
--     proportional to the line's length where the transport has typing;
--   * sometimes answers a greeting that names it ("welcome, amy!");
--   * now and then leaves for a while and comes back (bot.away);
--   * a troll also swears and floods the room, to keep the moderator busy.

local cfg = bot.config
local room = cfg.room or "lobby"

-- The bots of a fleet may all get the same seed: mix our name into it so
-- each one goes its own way (still reproducible: same seed and name, same run).
local seed = math.random(0, 1 << 30)
for i = 1, #bot.name do seed = seed * 31 + bot.name:byte(i) end
math.randomseed(seed)

local STYLES = {
  chatty = {
    gap = { 4, 12 },      -- seconds between lines, at random in this range
    answer = 0.9,         -- chance of answering a greeting
    away = 0.05,          -- chance of stepping out after a line
    lines = {
      "anyone watching the game tonight?",
      "I just made the best coffee of my life",
      "hey {other}, how's it going?",
      "what's everyone working on?",
      "lol",
      "brb, the cat is on the keyboard",
      "{other}: did you see the new release?",
      "it's so quiet in here today",
    },
  },
  shy = {
    gap = { 15, 40 }, answer = 0.4, away = 0.15,
    lines = { "hi", "...", "um, hello?", "nice", "I'll just listen for a bit", ":)" },
  },
  troll = {
    gap = { 3, 8 }, answer = 0.3, away = 0.1,
    flood = 0.3,          -- chance that a turn is a burst of spam instead of a line
    lines = {              -- mostly words the moderator's default list catches
      "first!",
      "this chat is darn boring",
      "who cares lol",
      "heck, nobody here knows anything",
      "{other} is wrong about everything",
      "crap, more of this?",
      "frak this",
      "what the heck is this",
    },
  },
}

local style = cfg.style or "chatty"
if style == "mixed" then
  local r = math.random(10)
  style = r == 1 and "troll" or r <= 4 and "shy" or "chatty"
end
local me = assert(STYLES[style], "persona: unknown style '" .. tostring(style) .. "'")
local lines = cfg.lines or me.lines
assert(type(lines) == "table" and #lines > 0, "persona: lines must be a list of at least one line")
local pace = cfg.pace or 1

-- The last few people who spoke (filled in by the message handler below),
-- for "{other}": people talk to whoever is talking. Cheaper than asking for
-- the roster, which is long when a thousand personas share a room.
local recent, slot = {}, 1
local function someone_else()
  if #recent > 0 then return recent[math.random(#recent)] end
end

-- Nothing is said while the bot is out of the room (kicked, away, reconnecting):
-- what it sent then would wait in its outbox and pour out the moment it is back.
-- And someone put out of the room (a moderator's kick: the link drops and the
-- bot is back within a second) sulks a while before talking again, as people
-- do: back at once, a troll would be kicked again at its next word.
-- (`online` starts true for `parley plugin test`, which has no connection events.)
local online, been_online, stepping_out, sulk_until = true, false, false, 0
bot.on("connection", function(ev)
  if ev.state == "online" then
    online, been_online, stepping_out = true, true, false
  else
    if online and been_online and not stepping_out then sulk_until = os.time() + math.random(10, 20) end
    online = false
  end
end)
local function may_speak() return online and os.time() >= sulk_until end

-- Say `text` like a person: typing first, for about 1 s per 12 characters
-- (the indicator times out after 5 s, so the wait stops short of that).
-- One line at a time: lines wait their turn in `queue`.
local queue, speaking = {}, false
local function speak_next()
  local text = table.remove(queue, 1)
  speaking = text ~= nil
  if not text then return end
  bot.typing(room, true)
  bot.after(math.min(4.5, math.max(1, #text / 12)), function()
    if may_speak() then bot.send(room, text) end   -- sending also hides the typing indicator
    speak_next()
  end)
end

local function say(text)
  if not may_speak() then return end
  if not bot.transport.typing then return bot.send(room, text) end
  queue[#queue + 1] = text
  if not speaking then speak_next() end
end

local function pick_line()
  local line = lines[math.random(#lines)]
  if line:find("{other}", 1, true) then
    local other = someone_else()
    if not other then return "anyone here?" end
    line = line:gsub("{other}", function() return other end)  -- names are not patterns
  end
  return line
end

-- A troll's flood: a burst of spam, half a second apart.
local function flood()
  for i = 1, 6 do
    bot.after(i * 0.5, function() if may_speak() then bot.send(room, "SPAM " .. i .. "!!!") end end)
  end
end

-- One turn: say something, then maybe step out; then plan the next turn.
local function turn()
  if me.flood and math.random() < me.flood then flood() else say(pick_line()) end
  local wait = math.random(me.gap[1], me.gap[2]) * pace
  if math.random() < (cfg.away or me.away) then
    local gone = math.random(4, 12)
    bot.after(6, function() stepping_out = true; bot.away(gone) end)  -- let the line go out first
    wait = wait + 6 + gone                        -- and stay quiet while away
  end
  bot.after(wait, turn)
end

bot.on("load", function()
  bot.after(math.random(1, me.gap[2]) * pace, turn)
end)

-- Remember who talks, and answer greetings that name us. The answers hold no greeting words, so two
-- personas never greet each other forever.
local GREETINGS = { hi = true, hello = true, hey = true, welcome = true, yo = true, howdy = true }
local ANSWERS = {
  chatty = { "thanks {user}!", "{user} o/", "good to see you, {user}" },
  shy = { "oh, thanks", ":)" },
  troll = { "what do you want, {user}?", "go away {user}" },
}
-- Our name as a whole word: a frontier only where the name has a letter or
-- digit at that end ("amy.b(x)" ends in ")", after which "%f[^%w]" never holds).
local lname = bot.name:lower()
local my_name = (lname:find("^%w") and "%f[%w]" or "") .. lname:gsub("%p", "%%%0")
  .. (lname:find("%w$") and "%f[^%w]" or "")

bot.on("message", function(msg)
  if msg.room ~= room then return end
  recent[slot], slot = msg.user, slot % 8 + 1   -- our own messages never come here
  local text = msg.text:lower()
  if not text:find(my_name) then return end
  local greeted = false
  for word in text:gmatch("%a+") do greeted = greeted or GREETINGS[word] == true end
  if greeted and math.random() < me.answer then
    local answers = ANSWERS[style]
    local answer = answers[math.random(#answers)]:gsub("{user}", function() return msg.user end)
    bot.after(math.random(1, 3), function() say(answer) end)
  end
end)
