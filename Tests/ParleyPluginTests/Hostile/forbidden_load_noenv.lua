-- expect: runtime
bot.hear("go", function() load("return 1") end)
