-- expect: budget
bot.hear("go", function()
  local s = ("a"):rep(100)
  s:match(("a-"):rep(5) .. "b")
end)
