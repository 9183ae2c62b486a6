-- expect: runtime
-- __gc finalizers run with hooks off: refused outright.
bot.hear("go", function()
  setmetatable({}, { __gc = function() while true do end end })
end)
