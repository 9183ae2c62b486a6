-- expect: budget
-- An empty string.rep builds nothing, so the memory cap would never stop it
-- in C: the sandbox answers "" at once, and the Lua loop around it trips.
bot.hear("go", function()
  while true do string.rep("", 1 << 40, "") end
end)
