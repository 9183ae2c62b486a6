-- expect: budget
-- pcall swallowing the budget error in a loop: the trip is sticky.
bot.hear("go", function()
  while true do pcall(function() while true do end end) end
end)
