-- expect: runtime
bot.hear("go", function() error(("x"):rep(1000000)) end)
