-- expect: quota
bot.hear("go", function(msg)
  assert(bot.send(msg.room, ("x"):rep(5000)) == nil)
end)
