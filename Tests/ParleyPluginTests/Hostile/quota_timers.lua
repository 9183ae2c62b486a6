-- expect: quota
bot.hear("go", function()
  assert(bot.after(0.01, function() end) == nil)
  for i = 1, 1000 do
    if not bot.after(60, function() end) then return end
  end
  error("timer quota never refused")
end)
