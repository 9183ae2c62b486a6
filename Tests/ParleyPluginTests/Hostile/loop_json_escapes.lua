-- expect: budget
-- A megabyte of escapes decodes in time linear in them, and is charged by size.
bot.hear("go", function()
  local s = '"' .. string.rep("\\n", 500000) .. '"'
  while true do bot.json.decode(s) end
end)
