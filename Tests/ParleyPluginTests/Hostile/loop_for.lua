-- expect: budget
bot.hear("go", function() for i = 1, math.maxinteger do local _ = i * 2 end end)
