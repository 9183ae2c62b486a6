-- expect: budget
-- Kill a coroutine in one event, close it in the next: its handler must never run.
local co
bot.hear("go", function()
  co = coroutine.create(function()
    local guard <close> = setmetatable({}, { __close = function() while true do end end })
    while true do end
  end)
  coroutine.resume(co)
end)
bot.hear("ping", function()
  if co then
    local ok, err = coroutine.close(co)
    bot.log.info("close:", ok, err)
  end
end)
