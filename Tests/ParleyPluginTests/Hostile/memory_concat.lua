-- expect: memory
bot.hear("go", function()
  local s = "xxxxxxxxxxxxxxxx"
  while true do s = s .. s end
end)
