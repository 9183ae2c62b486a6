-- expect: budget
bot.hear("go", function()
  string.gsub(("x"):rep(10), ".", function() while true do end end)
end)
