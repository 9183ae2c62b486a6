-- expect: quota
-- Only the first 20 sends of an event are accepted; the rest get nil, reason.
bot.hear("go", function(msg)
  for i = 1, 1000000 do
    local ok, err = bot.send(msg.room, "spam " .. i)
    if not ok then return end
  end
end)
