-- expect: budget
-- The same lie makes table.remove shift a trillion slots in C.
bot.hear("go", function()
  local t = setmetatable({}, { __len = function() return 1 << 40 end })
  table.remove(t, 1)
end)
