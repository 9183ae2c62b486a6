-- expect: budget
-- table.concat walks to #t in C; a C __index (rawlen) hands it a 0 at every step.
bot.hear("go", function()
  local t = setmetatable({}, { __len = function() return 1 << 40 end, __index = rawlen })
  table.concat(t)
end)
