-- expect: budget
-- A __len that lies makes table.sort walk two billion slots through C
-- metamethods: it is charged for the length sort takes, __len included.
bot.hear("go", function()
  local t = setmetatable({}, { __len = function() return 2^31 - 2 end, __index = rawlen, __newindex = rawequal })
  table.sort(t)
end)
