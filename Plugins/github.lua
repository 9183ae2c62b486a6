-- github.lua: posts GitHub pushes to a room.
--
-- Config (bot.toml):
--   [bot.plugin.github]
--   room = "dev"                    -- where pushes are announced
--   [bot.webhooks.github]
--   secret_env = "GITHUB_WEBHOOK_SECRET"   -- the secret set on GitHub's webhook page
--
-- Run with `parley run bot.toml --http 127.0.0.1:8080` behind your reverse
-- proxy and give GitHub the URL https://YOUR.HOST/hooks/BOT/github/push
-- (content type application/json). With a secret configured, Parley answers
-- 401 to any request whose X-Hub-Signature-256 does not match, before this
-- plugin sees it.

local room = bot.config.room or "dev"

bot.webhook("push", function(req)
  local event = req.headers["x-github-event"]
  -- GitHub sends a "ping" when the webhook is created.
  if event == "ping" then return { status = 200, body = "pong" } end
  if event ~= "push" then return { status = 202, body = "ignored" } end

  local push = bot.json.decode(req.body)
  if type(push) ~= "table" or type(push.repository) ~= "table" then
    return { status = 400, body = "not a push payload" }
  end
  local commits = push.commits or {}
  local branch = (push.ref or ""):gsub("^refs/heads/", "")
  local who = push.pusher and push.pusher.name or "someone"
  local line = ("%s pushed %d commit%s to %s of %s"):format(
    who, #commits, #commits == 1 and "" or "s", branch, push.repository.full_name or "?")
  -- The first line of the newest commit's message says what it was about.
  local head = commits[#commits]
  if head and head.message then line = line .. ": " .. head.message:match("^[^\n]*") end
  bot.send(room, line)
  -- Returning nothing answers 204; once answered, the send is in the journal.
end)
