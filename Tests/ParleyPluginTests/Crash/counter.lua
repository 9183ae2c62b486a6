-- CrashTests' plugin: counts events in bot.state and answers each one with
-- "ack N for TAG", TAG being what the test sent with it ("!count TAG", or a
-- join's user). The harness prints a send only once the state write of the
-- same handler is durable, so every printed N must survive a crash; the tag
-- tells the test which event an ack answers (a fresh one, or a re-send after
-- a restart).
local function count(tag)
  local n = (bot.state.get("n") or 0) + 1
  bot.state.set("n", n)
  return "ack " .. n .. " for " .. tag
end

bot.command("count", function(msg, args) msg:reply(count(args.raw)) end)

-- A join reaches the plugin without a history record of its own, so the
-- handler's transaction is the first journal write: the fault tests use it to
-- fail exactly that transaction's pwrite or fdatasync.
bot.on("join", function(ev) bot.send(ev.room, count(ev.user)) end)
