-- expect: memory
-- Keeps what it allocates: every later event fails too, until the breaker trips.
hoard = {}
bot.hear("go", function()
  while true do hoard[#hoard + 1] = ("y"):rep(65536) .. #hoard end
end)
