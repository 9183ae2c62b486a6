-- expect: budget
-- An ordinary error whose handler loops forever.
bot.hear("go", function()
  xpcall(function() error("x") end, function() while true do end end)
  while true do end
end)
