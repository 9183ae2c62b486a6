-- expect: budget
bot.hear("go", function()
  table.sort({ 3, 2, 1, 5, 4 }, function(a, b) while true do end end)
end)
