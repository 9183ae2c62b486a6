-- expect: budget
-- Reading a number from megabytes of spaces is one C call each time: tonumber,
-- math's functions and the string arithmetic are charged for what they read.
bot.hear("go", function()
  local s = string.rep(" ", 8 << 20)
  local z = string.rep("0", 8 << 20)
  while true do
    tonumber(s)
    pcall(function() return z + 0 end)
    math.tointeger(z)
  end
end)
