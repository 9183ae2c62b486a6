-- weather.lua: "!weather Paris" asks a weather service and says the answer.
--
-- Config (bot.toml):
--   [bot.http]
--   allow = ["api.example.com"]     -- bot.http reaches only the hosts listed here
--   [bot.plugin.weather]
--   url = "https://api.example.com/weather?city={city}"
--                                   -- {city} is replaced by the city, URL-encoded
--
-- The service answers JSON such as {"city": "Paris", "sky": "sunny", "temp": 21}.
--
-- bot.http does not wait for the answer: the function given to it runs later,
-- as an event of its own (with its own budget), with `res` or, when the
-- request failed, with nil and the reason.

local url = bot.settings({ url = "https://api.example.com/weather?city={city}" }).url

-- Spaces and other special characters may not appear in a URL as they are.
local function encode(text)
  return (text:gsub("[^%w%-%._~]", function(c) return ("%%%02X"):format(c:byte()) end))
end

bot.command("weather", function(msg, args)
  local city = args.raw
  if city == "" then return msg:reply("usage: !weather CITY") end
  -- utf8.len counts characters ("Zürich" is 6), or is nil for bytes that are not UTF-8.
  if (utf8.len(city) or math.huge) > 100 then return msg:reply("That is a long name for a city.") end
  -- A function as gsub's replacement: "%" in the encoded city is then not special.
  local target = url:gsub("{city}", function() return encode(city) end)
  local id, err = bot.http({ url = target, timeout = 5 }, function(res, why)
    if not res then
      bot.log.warn("weather for " .. city .. " failed: " .. why)
      return msg:reply("Sorry, the weather service did not answer.")
    end
    if res.status ~= 200 then
      return msg:reply(("Sorry, the weather service said %d."):format(res.status))
    end
    -- A malformed answer gives nil and a reason, not an error.
    local w = bot.json.decode(res.body)
    if type(w) ~= "table" or type(w.sky) ~= "string" or type(w.temp) ~= "number" then
      return msg:reply("Sorry, I could not read the forecast.")
    end
    -- The service's words are not ours: bot.fit cuts them to what the chat
    -- carries (StreamChat: 300 characters, no frame tokens).
    msg:reply(bot.fit(("%s: %s, %s°C"):format(type(w.city) == "string" and w.city or city, w.sky, w.temp)))
  end)
  -- Refused at once: not in [bot.http] allow, or too many requests.
  if not id then msg:reply("Sorry, I can't ask right now (" .. err .. ").") end
end, { help = "the weather in a city", usage = "CITY" })
