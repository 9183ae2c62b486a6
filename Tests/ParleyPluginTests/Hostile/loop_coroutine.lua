-- expect: budget
bot.hear("go", function()
  local co = coroutine.create(function() while true do end end)
  while true do coroutine.resume(co) co = coroutine.create(function() while true do end end) end
end)
