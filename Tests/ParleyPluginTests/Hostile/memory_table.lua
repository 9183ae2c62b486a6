-- expect: memory
bot.hear("go", function()
  local t = {}
  while true do t[#t + 1] = { #t, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 } end
end)
