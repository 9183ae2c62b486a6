-- moderator.lua: warn people who swear, flood or send forbidden text, and
-- escalate for repeat offenders.
--
-- Config (bot.toml):
--   [bot.plugin.moderator]
--   words          = ["darn", "heck", "crap", "frak"]  -- bad words, one word each: matched as
--                            -- whole words, ASCII case-insensitive
--   flood_messages = 5       -- more than this many messages ...
--   flood_seconds  = 10      -- ... in this many (whole) seconds, from one user, is a flood
--   forbidden      = []      -- extra text nobody may send (plain substrings, case-sensitive);
--                            -- the transport's own protocol tokens (bot.transport.forbidden)
--                            -- are always added
--   strike_decay   = 3600    -- every this many seconds without an offence forgives one
--                            -- strike (0: strikes never decay)
--   exempt         = []      -- users never moderated (other bots, e.g. "greeter");
--                            -- users with the moderator role never are either
--   shadow         = false   -- true: count strikes and write the audit lines, act on nobody
--   steps          = ["warn", "final_warning", "mute", "kick"]
--                            -- what strike 1, 2, 3, ... brings; the last step repeats
--   mute_seconds   = 600     -- how long a "mute" step silences someone
--
-- Escalation, one strike per offending message, by `steps`: by default a
-- warning, a final warning, ten minutes muted, then a kick (a kick is not a
-- ban: they may come back, and the next offence kicks again). Where the chat
-- cannot mute or kick (bot.transport.mute / .kick are false), the bot says
-- so in words and warns instead.
--
-- Commands, for users with the moderator role ([bot.roles] moderator = [...]):
--   !strikes USER   how many strikes USER has now
--   !pardon USER    forgives all of USER's strikes
-- Anyone else who tries is told the role is needed (`!help` lists what each
-- user may run).
--
-- Every decision is one audit line in the bot log, e.g.
--   audit user=bob strike=2 reason=flood action=final_warning room=lobby
-- and a mute or kick that fails (the server refused it, say) is a second
-- one, and put right in the room:
--   audit user=bob action=kick result=failed room=lobby why="..."
--
-- What it remembers, in bot.state (so strikes and mutes survive restarts):
--   "strikes:USER" = { n = strikes, last = time of the last offence,
--                      muted = { ROOM = when the mute there ends } }
-- Strikes follow a person from room to room; a mute or a kick is of one room.
-- A mute lives in the chat server; one that restarted has forgotten it, so
-- a muted user who joins is muted again for what is left. !pardon forgives
-- the strikes; a mute the server holds runs its time (chats have no unmute).
--   (shadow mode keeps its own count under "shadow:USER", so turning shadow
--   off later starts everyone clean).
-- Flood windows are kept in memory only: they are seconds long.

local cfg = bot.config

-- A misspelt setting would silently fall back to its default: refuse it.
local SETTINGS = { "words", "flood_messages", "flood_seconds", "forbidden", "strike_decay",
                   "exempt", "shadow", "steps", "mute_seconds" }
for name in pairs(cfg) do
  local known = false
  for _, s in ipairs(SETTINGS) do known = known or s == name end
  if not known then
    error(("unknown setting %q; the settings are %s"):format(tostring(name), table.concat(SETTINGS, ", ")), 0)
  end
end

-- Settings are checked at load: a wrong one found mid-conversation would fail
-- every message it touches, and stop the moderation it was meant to tune.
local function setting(name, default, ok, what)
  local v = cfg[name]
  if v == nil then return default end
  local fine, bad, said = ok(v)
  if not fine then
    bad = bad == nil and v or bad   -- a list names its first wrong entry
    local shown = said or type(bad) == "string" and ("%q"):format(bad) or tostring(bad)
    error(("%s must be %s; %s is not"):format(name, what, type(bad) == "table" and not said and "a table" or shown), 2)
  end
  return v
end
local function whole(lo, hi) return function(v) return math.type(v) == "integer" and v >= lo and v <= hi end end
local function number(lo) return function(v) return type(v) == "number" and v >= lo and v < math.huge end end
local function list(check) return function(v)
  if type(v) ~= "table" then return false end
  -- A TOML table ({heck = true}) is not a list: ipairs would see it empty.
  for k in pairs(v) do
    if math.type(k) ~= "integer" or k < 1 or k > #v then return false, v, "a table with named keys" end
  end
  for _, x in ipairs(v) do if not check(x) then return false, x end end
  return true
end end
local function word(v) return type(v) == "string" and v:find("^[%w\128-\255]+$") ~= nil end
local function text(v) return type(v) == "string" and v ~= "" end

local flood_messages = setting("flood_messages", 5, whole(1, 1000), "a whole number from 1 to 1000")
-- Whole seconds: the clock the windows are kept on is os.time().
local flood_seconds = setting("flood_seconds", 10, whole(1, 86400), "a whole number of seconds from 1 to 86400")
local strike_decay = setting("strike_decay", 3600, number(0), "a number of seconds, 0 or more")
local shadow = setting("shadow", false, function(v) return type(v) == "boolean" end, "true or false")
local steps = setting("steps", { "warn", "final_warning", "mute", "kick" }, list(text), "a list of steps")
-- bot.mute takes 1 s to 7 days.
local mute_seconds = setting("mute_seconds", 600, whole(1, 604800), "a whole number of seconds from 1 to 604800")
local words = setting("words", { "darn", "heck", "crap", "frak" }, list(word),
  "a list of single words (letters and digits, no spaces)")
local exempt_users = setting("exempt", {}, list(text), "a list of user names")
local forbidden_texts = setting("forbidden", {}, list(text), "a list of texts")

-- A misspelt step would be logged as done and never done: refuse it at load.
local known = { warn = true, final_warning = true, mute = true, kick = true }
if #steps == 0 then error("steps must list at least one step (warn, final_warning, mute, kick)", 0) end
for _, step in ipairs(steps) do
  if not known[step] then error(("unknown step '%s' in steps (warn, final_warning, mute, kick)"):format(tostring(step))) end
end

-- Lists from the config become sets, for one lookup per word.
local bad = {}
for _, w in ipairs(words) do bad[w:lower()] = true end
local exempt = {}
for _, u in ipairs(exempt_users) do exempt[u] = true end
local forbidden = {}
for _, t in ipairs(bot.transport.forbidden) do forbidden[#forbidden + 1] = t end
for _, t in ipairs(forbidden_texts) do forbidden[#forbidden + 1] = t end

-- What the bot tells the offender, by reason. Never quote the offending
-- text back: bot.send would refuse a forbidden token anyway.
local ASK = {
  word = "please mind your language",
  flood = "please slow down",
  forbidden = "please don't send that here",
}

-- The reason a message breaks the rules, or nil.
local function offence(text)
  for _, t in ipairs(forbidden) do
    if text:find(t, 1, true) then return "forbidden" end   -- plain find, no patterns
  end
  -- Words are runs of letters, digits and UTF-8 bytes, so "heckle" is not "heck".
  for word in text:lower():gmatch("[%w\128-\255]+") do
    if bad[word] then return "word" end
  end
end

-- A name as the bot says it in the room: cut at 40 characters, so a very
-- long one still leaves room for the warning in the chat's message limit.
local function named(user)
  -- utf8.offset gives where the 41st character starts; past the end (#user + 1)
  -- when the name has exactly 40, which then needs no cut.
  local cut = utf8.len(user) and utf8.offset(user, 41)
  return cut and cut <= #user and user:sub(1, cut - 1) .. "…" or user
end

-- A value in an audit line, quoted when it holds a space, `=`, a quote or a
-- control character: a name like `x action=pardon` cannot forge a field.
local function field(v)
  v = tostring(v)
  if v ~= "" and not v:find('[%s%c="\\]') then return v end
  return '"' .. v:gsub('[%c"\\]', function(c) return ("\\%03d"):format(c:byte()) end) .. '"'
end

-- Flood check: the times of each user's recent messages, oldest first.
local recent = {}
local function flooding(user, now)
  local times = recent[user] or {}
  recent[user] = times
  times[#times + 1] = now
  while times[1] and now - times[1] >= flood_seconds do table.remove(times, 1) end
  if #times > flood_messages then
    recent[user] = nil          -- one strike per flood, then count afresh
    return true
  end
  return false
end

-- Forget windows of people who went quiet, so memory stays small.
bot.every(60, function()
  local now = os.time()
  for user, times in pairs(recent) do
    if now - times[#times] >= flood_seconds then recent[user] = nil end
  end
end)

-- State keys are at most 256 bytes: a very long name is cut, between
-- characters (names that share their first 248 bytes share their strikes).
local function key(user)
  local k = (shadow and "shadow:" or "strikes:") .. user
  if #k <= 256 then return k end
  local cut = 256
  while cut > 0 and (k:byte(cut + 1) or 0) & 0xC0 == 0x80 do cut = cut - 1 end
  return k:sub(1, cut)
end

-- A user's strikes now, after forgiving old ones.
local function strikes(user, now)
  local s = bot.state.get(key(user)) or { n = 0, last = now }
  if strike_decay > 0 and now > s.last then
    s.n = math.max(0, s.n - (now - s.last) // strike_decay)
  end
  return s
end

-- Add a strike and return the new count, and the step it brings.
local function strike(user, room, now)
  local s = strikes(user, now)
  s.n, s.last = s.n + 1, now
  local step = steps[math.min(s.n, #steps)]
  if step == "mute" and bot.transport.mute and not shadow then
    s.muted = s.muted or {}
    s.muted[room] = now + mute_seconds
  end
  local kept, why = bot.state.set(key(user), s)
  if not kept then bot.log.warn(("strike of %s not kept: %s"):format(user, why)) end
  return s.n, step
end

-- Seconds left of a user's mute in a room (an older record's `muted_until`
-- stands for every room), or nil.
local function mute_left(s, room, now)
  local ends = s and (s.muted and s.muted[room] or s.muted_until)
  return ends and ends > now and ends - now or nil
end

-- A mute the server refused is not one to put back at the next join.
local function forget_mute(user, room)
  local s = bot.state.get(key(user))
  if not s or not (s.muted or s.muted_until) then return end
  if s.muted then s.muted[room] = nil end
  s.muted_until = nil
  bot.state.set(key(user), s)
end

-- One key per person and room, for what is of one room.
local function where(room, user) return room .. "\0" .. user end

-- People just kicked, by room. The lines they sent before the kick reached
-- them are still arriving: they are not offences again, until they come back.
local kicked = {}

-- What a step says, and the chat's own action for it (if any). A step the
-- chat cannot take falls back to words.
local function carry_out(step, msg, ask, n)
  local user = named(msg.user)
  if step == "mute" and bot.transport.mute then
    local n, unit = mute_seconds, "second"
    if n % 60 == 0 then n, unit = n // 60, "minute" end
    local span = ("%d %s%s"):format(n, unit, n == 1 and "" or "s")
    return ("%s, %s. You are muted for %s."):format(user, ask, span),
      function(told) return bot.mute(msg.room, msg.user, mute_seconds, ask, told) end
  elseif step == "kick" and bot.transport.kick then
    return ("%s, %s. You are out of the room now."):format(user, ask),
      function(told) return bot.kick(msg.room, msg.user, ask, told) end
  elseif step == "mute" or step == "kick" then
    return ("%s, %s. Strike %d: I can't %s anyone on this chat, so all I can do is warn you.")
      :format(user, ask, n, step), nil, "warn"
  elseif step == "final_warning" then
    return ("%s, %s. Final warning!"):format(user, ask)
  end
  return ("%s, %s. This is a warning."):format(user, ask)
end

-- Who left since they last joined, for a chat that keeps no roster.
local left = {}

-- Whether someone is still in the room: a step that failed because they left
-- needs no correcting.
local function here(room, user)
  if not bot.transport.roster then return not left[where(room, user)] end
  for _, u in ipairs(bot.roster(room)) do
    if u.user == user then return u.online end
  end
  return false
end

local function act(msg, reason)
  local user, now = msg.user, os.time()
  local n, step = strike(user, msg.room, now)
  local text, action, fallback = carry_out(step, msg, ASK[reason], n)
  bot.log.info(("audit user=%s strike=%d reason=%s action=%s room=%s%s")
    :format(field(user), n, reason, fallback or step, field(msg.room), shadow and " shadow=true" or ""))
  if shadow then return end
  -- Say why first, then act: a kicked user still reads the reason.
  local said, err = msg:reply(text)
  if not said then bot.log.warn("could not warn " .. user .. ": " .. err) end
  if action then
    if step == "kick" then kicked[where(msg.room, user)] = true end
    -- The server answers after this handler. A failed step is audited, and
    -- put right in the room when the room was told it happened (a step
    -- dropped with its announcement was never announced) and they are still there.
    local taken, cannot = action(function(done, why)
      if done then return end
      kicked[where(msg.room, user)] = nil
      if step == "mute" then forget_mute(user, msg.room) end
      bot.log.warn(("audit user=%s action=%s result=failed room=%s why=%q"):format(field(user), step, field(msg.room), why))
      if said and not why:find("^dropped with the send") and here(msg.room, user) then
        local sent, refused = bot.send(msg.room, ("(I could not %s %s after all: %s)"):format(step, named(user), why))
        if not sent then bot.log.warn("could not correct the room: " .. refused) end
      end
    end)
    if not taken then bot.log.warn(("could not %s %s: %s"):format(step, user, cannot)) end
  end
end

-- Whether a user has the moderator role: moderators are not moderated
-- (their !strikes and !pardon would otherwise count as a flood).
local function moderates(user)
  for _, role in ipairs(bot.roles(user)) do
    if role == "moderator" then return true end
  end
  return false
end

bot.on("message", function(msg)
  if exempt[msg.user] or kicked[where(msg.room, msg.user)] or moderates(msg.user) then return end
  -- Every message counts towards a flood, even one that breaks another rule;
  -- but one message gives at most one strike.
  local flood = flooding(msg.user, os.time())
  local reason = offence(msg.text) or (flood and "flood")
  if reason then act(msg, reason) end
end)

bot.on("leave", function(ev)
  if not bot.transport.roster then left[where(ev.room, ev.user)] = true end
end)

bot.on("join", function(ev)
  kicked[where(ev.room, ev.user)], left[where(ev.room, ev.user)] = nil, nil
  local seconds = mute_left(bot.state.get(key(ev.user)), ev.room, os.time())
  if seconds then
    bot.log.info(("audit user=%s action=mute_again seconds=%d room=%s"):format(field(ev.user), seconds, field(ev.room)))
    local ok, err = bot.mute(ev.room, ev.user, seconds, "still muted", function(done, why)
      if done then return end
      forget_mute(ev.user, ev.room)
      bot.log.warn(("audit user=%s action=mute_again result=failed room=%s why=%q"):format(field(ev.user), field(ev.room), why))
    end)
    if not ok then bot.log.warn(("could not mute %s again: %s"):format(ev.user, err)) end
  end
end)

-- Only moderators may look up or forgive strikes: the roles option makes
-- Parley refuse everyone else before the handler runs.
local mods = { roles = { "moderator" } }

-- The whole rest of the line is the name, as typed: "!strikes bad  guy" is
-- about "bad  guy" (args.raw keeps the inner spacing; args would lose it).
bot.command("strikes", function(msg, args)
  local user = args.raw
  if user == "" then return msg:reply("usage: !strikes USER") end
  local n = strikes(user, os.time()).n
  msg:reply(("%s has %d strike%s."):format(named(user), n, n == 1 and "" or "s"))
end, { help = "how many strikes a user has", usage = "USER", roles = mods.roles })

bot.command("pardon", function(msg, args)
  local user = args.raw
  if user == "" then return msg:reply("usage: !pardon USER") end
  local s = bot.state.get(key(user))
  if not s then return msg:reply(("%s has no strikes to forgive."):format(named(user))) end
  bot.state.set(key(user), nil)
  bot.log.info(("audit user=%s action=pardon by=%s room=%s"):format(field(user), field(msg.user), field(msg.room)))
  -- Mutes running in any room, not only the one the pardon was typed in.
  local now, running = os.time(), {}
  for room in pairs(s.muted or {}) do
    local seconds = mute_left(s, room, now)
    if seconds then running[#running + 1] = ("%s (%d s)"):format(room, seconds) end
  end
  if #running == 0 and mute_left(s, msg.room, now) then   -- an older record's one mute for every room
    running[1] = ("%s (%d s)"):format(msg.room, mute_left(s, msg.room, now))
  end
  table.sort(running)
  msg:reply(("%s is forgiven.%s"):format(named(user), #running > 0
    and (" A mute still runs, in %s: the chat has no unmute."):format(table.concat(running, ", ")) or ""))
end, { help = "forgive all of a user's strikes", usage = "USER", roles = mods.roles })
