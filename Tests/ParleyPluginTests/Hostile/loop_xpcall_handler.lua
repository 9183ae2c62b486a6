-- expect: budget
-- The message handler of a budget error runs with hooks off in stock Lua.
bot.hear("go", function()
  xpcall(function() while true do end end, function() while true do end end)
end)
