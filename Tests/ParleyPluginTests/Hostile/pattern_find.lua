-- expect: budget
-- 9.5 s in stock Lua with no hook call at all.
bot.hear("go", function()
  string.find(("a"):rep(100), ("a-"):rep(5) .. "b")
end)
