-- expect: budget
-- Each upper of 8 MB is one short C call; a loop of them is charged by what
-- each call makes, so the deadline is checked at every call.
bot.hear("go", function()
  local s = string.rep("x", 8 << 20)
  while true do local _ = s:upper() end
end)
