-- expect: runtime
bot.hear("go", function() debug.sethook() end)
