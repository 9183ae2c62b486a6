-- expect: quota
bot.hear("go", function()
  assert(bot.state.set(("k"):rep(300), 1) == nil)
  assert(bot.state.set("big", ("v"):rep(70000)) == nil)
  for i = 1, 100 do
    if not bot.state.set("k" .. i, ("v"):rep(60000)) then return end
  end
  error("state quota never refused")
end)
