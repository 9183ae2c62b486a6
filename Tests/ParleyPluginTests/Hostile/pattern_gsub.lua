-- expect: budget
bot.hear("go", function()
  (("a"):rep(100)):gsub(("a-"):rep(5) .. "b", "x")
end)
