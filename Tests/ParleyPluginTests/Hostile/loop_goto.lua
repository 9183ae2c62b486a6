-- expect: budget
bot.hear("go", function() ::top:: goto top end)
