-- expect: quota
bot.hear("go", function()
  for i = 1, 100000 do
    if not bot.log.info(("z"):rep(5000)) then return end
  end
end)
