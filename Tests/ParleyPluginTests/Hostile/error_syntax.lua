-- expect: syntax
bot.hear("go", function() end
