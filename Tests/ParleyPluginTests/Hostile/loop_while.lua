-- expect: budget
bot.hear("go", function() while true do end end)
