-- expect: memory
bot.hear("go", function() local s = string.rep("x", 1 << 30) end)
