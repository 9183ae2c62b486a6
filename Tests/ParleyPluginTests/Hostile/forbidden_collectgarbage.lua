-- expect: runtime
bot.hear("go", function() collectgarbage("stop") end)
