-- expect: budget
bot.hear("go", function()
  local t = {}
  for i = 1, 200000 do t[i] = (i * 7919) % 1000003 end
  while true do table.sort(t) end
end)
