-- expect: budget
-- A __len that lies makes table.insert shift a trillion slots in C.
bot.hear("go", function()
  local t = setmetatable({}, { __len = function() return 1 << 40 end })
  table.insert(t, 1, 1)
end)
