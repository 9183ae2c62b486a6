-- expect: budget
bot.hear("go", function() repeat local x = 1 until false end)
