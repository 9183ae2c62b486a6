-- expect: budget
-- Catch the budget error and return at once: the host still sees the trip.
bot.hear("go", function()
  local ok = pcall(function() while true do end end)
  return ok
end)
