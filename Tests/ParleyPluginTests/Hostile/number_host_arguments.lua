-- expect: runtime
-- Numbers no host function can take: each must be refused as an error in
-- this plugin, never trap the process converting them.
bot.hear("go", function(msg)
  for _, n in ipairs({ math.maxinteger, math.mininteger, math.huge, -math.huge, 0/0, 1e300, 2.5 }) do
    assert(not pcall(bot.history, msg.room, { limit = n }), "bot.history took limit " .. tostring(n))
  end
  bot.history(msg.room, { limit = 1e300 })
end)
