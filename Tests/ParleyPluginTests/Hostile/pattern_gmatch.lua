-- expect: budget
bot.hear("go", function()
  for _ in (("a"):rep(100)):gmatch(("a-"):rep(5) .. "b") do end
end)
