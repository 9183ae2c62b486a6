-- expect: budget
-- table.move copies in C, out of the instruction hook's reach.
bot.hear("go", function()
  table.move({}, 1, 1 << 40, 1, {})
end)
