-- expect: runtime
bot.hear("go", function() error(nil) end)
