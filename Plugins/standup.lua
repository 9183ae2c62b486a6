-- standup.lua: reminds a room of its stand-up, on a schedule.
--
-- Config (bot.toml):
--   timezone = "Europe/Berlin"      -- in [[bot]]: the zone the schedule is read in (default UTC)
--   [bot.plugin.standup]
--   room = "lobby"                  -- where to remind
--   at   = "55 8 * * mon-fri"       -- when: minute hour day-of-month month day-of-week
--   text = "Stand-up in five minutes!"
--
-- Commands:
--   !skip     skips the next reminder (for the "lead" role: [bot.roles] lead = [...])
--   !unskip   takes that back
--
-- The schedule survives restarts, and one missed while the bot was down is
-- sent once when it is back (a late reminder beats none).

local cfg = bot.settings({ room = "lobby", at = "55 8 * * mon-fri", text = "Stand-up in five minutes!" })
local room, text = cfg.room, cfg.text

bot.cron(cfg.at, function()
  -- A skip lives in bot.state, so it survives a restart too.
  if bot.state.get("skip") then
    bot.state.set("skip", nil)
    bot.log.info("stand-up reminder skipped")
    return
  end
  bot.send(room, text)
end)

local lead = { roles = { "lead" } }

bot.command("skip", function(msg)
  bot.state.set("skip", true)
  msg:reply("The next stand-up reminder is skipped.")
end, { help = "skip the next stand-up reminder", roles = lead.roles })

bot.command("unskip", function(msg)
  bot.state.set("skip", nil)
  msg:reply("The next stand-up reminder is on again.")
end, { help = "undo !skip", roles = lead.roles })
