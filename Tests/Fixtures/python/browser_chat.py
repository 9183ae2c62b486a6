#!/usr/bin/env python3
"""Drives the embedded server's web chat in headless Chromium (Debian's
chromium and chromium-driver, through selenium) and checks what a person
sees. The Swift test (WebChatBrowserTests) starts the server, the bots and a
simulated person who keeps typing, then runs this.

    .venv/bin/python Tests/Fixtures/python/browser_chat.py --url http://127.0.0.1:PORT/ \
        --scenario chat|hostile|moderated|lost|demo|dashboard [--chat-url URL] --screenshots .build/screenshots

Prints one `ok: ...` line per step; on a failure, `FAIL: ...` and exit 1
(with a screenshot of the moment, `*-failure.png`).
"""

import argparse
import contextlib
import os
import re
import sys
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

TIMEOUT = 20


class Failure(Exception):
    pass


def browser():
    opts = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=900,700"):
        opts.add_argument(flag)
    opts.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def until(what, check, timeout=TIMEOUT):
    end = time.time() + timeout
    while time.time() < end:
        try:
            got = check()
            if got:
                return got
        except Exception:
            pass
        time.sleep(0.1)
    raise Failure(what)


def lines(driver):
    """The conversation as (who, text) pairs; notices have who None."""
    out = []
    for li in driver.find_elements(By.CSS_SELECTOR, "#messages li"):
        if "notice" in (li.get_attribute("class") or ""):
            out.append((None, li.get_attribute("textContent")))
        else:
            who = li.find_element(By.CLASS_NAME, "who").get_attribute("textContent").rstrip(":")
            text = li.find_element(By.CLASS_NAME, "text").get_attribute("textContent")
            out.append((who, text))
    return out


def join(driver, url, nick):
    driver.get(url)
    box = driver.find_element(By.ID, "nickname")
    box.send_keys(nick)
    box.send_keys(Keys.ENTER)            # keyboard only: Enter joins
    until(f"{nick} joined", lambda: driver.find_element(By.ID, "chat").is_displayed())
    until(f"{nick} in the people list",
          lambda: nick in [li.get_attribute("textContent") for li in driver.find_elements(By.CSS_SELECTOR, "#people li")])


def say(driver, text):
    box = driver.find_element(By.ID, "text")
    box.send_keys(text)
    box.send_keys(Keys.ENTER)            # Enter sends


@contextlib.contextmanager
def session(shots, name):
    """A browser for a scenario; on a failure, a screenshot of the moment."""
    d = browser()
    try:
        yield d
    except Exception:
        d.save_screenshot(os.path.join(shots, f"{name}-failure.png"))
        raise
    finally:
        d.quit()


def chat(url, shots, _):
    with session(shots, "web-chat") as a, session(shots, "web-chat-second-window") as b:
        join(a, url, "Wanda")
        print("ok: joined as Wanda, listed among the people")
        until("the greeter welcomes Wanda", lambda: any(w == "greeter" and "Wanda" in t for w, t in lines(a)))
        print("ok: greeted")
        say(a, "!ping")
        until("pong from the bot", lambda: ("parley", "pong") in lines(a))
        print("ok: !ping answered pong")
        typing = until("someone's typing indicator", lambda: "is typing" in a.find_element(By.ID, "typing").text and
                       a.find_element(By.ID, "typing").text)
        print(f"ok: typing shown: {typing}")
        a.save_screenshot(os.path.join(shots, "web-chat.png"))

        # The longest name the page takes, which is the server's limit (64):
        # the server accepts it, and it must wrap, not widen the page.
        long_name = "Xavier" + "x" * 58
        if b.get(url) or b.find_element(By.ID, "nickname").get_attribute("maxlength") != str(len(long_name)):
            raise Failure("the page's name limit is not the server's 64 characters")
        join(b, url, long_name)
        say(a, "hello from the first window")
        until("the second window sees the first's message",
              lambda: ("Wanda", "hello from the first window") in lines(b))
        print("ok: a second window sees the first person's messages")
        a.find_element(By.ID, "leave").click()
        until("the second window sees Wanda leave", lambda: any(w is None and "Wanda left" in t for w, t in lines(b)))
        print("ok: left, and the other window saw it")
        b.save_screenshot(os.path.join(shots, "web-chat-second-window.png"))
        # A phone: 360 px wide, nothing to scroll sideways, still talking.
        b.set_window_size(360, 740)
        wide = b.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if wide > 0:
            raise Failure(f"at 360 px the page is {wide} px too wide")
        say(b, "from a phone")
        until("the narrow window's line", lambda: (long_name, "from a phone") in lines(b))
        print("ok: usable at 360 px wide")
        b.save_screenshot(os.path.join(shots, "web-chat-360.png"))


def hostile(url, shots, _):
    with session(shots, "web-chat-hostile") as d:
        nick = "<img src=x onerror=alert(1)>"   # within the 64 characters a name may have
        join(d, url, nick)
        text = '<b>bold?</b><script>window.pwned=3</script><img src=x onerror="window.pwned=4">'
        say(d, text)
        until("the hostile message shown as text", lambda: (nick, text) in lines(d))
        if d.execute_script("return window.pwned") is not None:
            raise Failure("a script from a name or message ran")
        if d.find_elements(By.CSS_SELECTOR, "#messages b, #messages script, #messages img, #people img"):
            raise Failure("a name or message became HTML")
        try:
            d.switch_to.alert
            raise Failure("an alert opened")
        except NoAlertPresentException:
            pass
        print("ok: tags in a name and a message render as text; nothing ran")
        before = len(lines(d))
        say(d, "x" * 1500)
        until("the too-long notice", lambda: any(w is None and "Message too long: 1500 characters" in t for w, t in lines(d)))
        time.sleep(0.5)
        if any(w == nick and t.startswith("xxxx") for w, t in lines(d)[before:]):
            raise Failure("the over-long message was sent")
        print("ok: an over-long message is refused with a notice")
        d.save_screenshot(os.path.join(shots, "web-chat-hostile.png"))


def moderated(url, shots, _):
    """A bot `mod` that mutes and kicks on request: the page says each once,
    and a removed person's message box is closed, not silently eaten. The
    server has a moderator token: a visitor who picks `mod` is refused."""
    with session(shots, "web-chat-impostor") as i:
        i.get(url)
        box = i.find_element(By.ID, "nickname")
        box.send_keys("mod")
        box.send_keys(Keys.ENTER)
        until("the refusal", lambda: "moderator's name" in i.find_element(By.ID, "status").text)
        if i.find_element(By.ID, "chat").is_displayed() or not i.find_element(By.ID, "join").is_displayed():
            raise Failure("after the refusal the page still shows the room, not the join form")
        print("ok: a moderator's name is refused to a visitor, who is told why")
        box = i.find_element(By.ID, "nickname")
        box.clear()
        box.send_keys("Yolanda")
        box.send_keys(Keys.ENTER)
        until("Yolanda in the people list",
              lambda: "Yolanda" in [li.get_attribute("textContent") for li in i.find_elements(By.CSS_SELECTOR, "#people li")])
        print("ok: the refused visitor picks another name without reloading")
        # The same name from a second window takes it over: the first is told, and its box closes.
        with session(shots, "web-chat-twin") as twin:
            join(twin, url, "Yolanda")
            until("the take-over notice", lambda: any(w is None and "Someone else joined as Yolanda" in t for w, t in lines(i)))
            until("the first window's box closed", lambda: not i.find_element(By.ID, "text").is_enabled())
            say(twin, "the second window speaks")
            until("the second window's line", lambda: ("Yolanda", "the second window speaks") in lines(twin))
        print("ok: a name taken over from another window closes the first, which says why")
    with session(shots, "web-chat-moderated") as d:
        join(d, url, "Zed")
        say(d, "mute me")
        until("the mute notice", lambda: any(w is None and "You are muted for 5 s by mod" in t for w, t in lines(d)))
        before = len(lines(d))
        say(d, "can anyone hear me")
        until("the dropped notice", lambda: any(w is None and "Not sent" in t for w, t in lines(d)[before:]))
        time.sleep(0.5)
        notices = [t for w, t in lines(d)[before:] if w is None and "Not sent" in t]
        if len(notices) != 1:
            raise Failure(f"a dropped message gave {len(notices)} notices: {notices}")
        print("ok: a message sent while muted gets one notice")
        time.sleep(5)  # the mute runs out before the kick
        say(d, "kick me")
        until("the kick notice", lambda: any(w is None and "You were removed by mod" in t for w, t in lines(d)))
        until("the message box closed", lambda: not d.find_element(By.ID, "text").is_enabled())
        if d.find_element(By.ID, "send").is_enabled():
            raise Failure("the Send button still works after the kick")
        if "Removed from the room" not in d.find_element(By.ID, "status").text:
            raise Failure(f"status after the kick: {d.find_element(By.ID, 'status').text}")
        print("ok: once kicked, the message box is closed and the status says why")
        d.save_screenshot(os.path.join(shots, "web-chat-kicked.png"))
        d.find_element(By.ID, "leave").click()
        time.sleep(0.5)
        if d.find_element(By.ID, "status").text != "You left":
            raise Failure(f"status after Leave: {d.find_element(By.ID, 'status').text}")
        print("ok: Leave says so")


def lost(url, shots, _):
    """The server goes away under a joined page (the test stops it once Lou is
    in, and starts it again on the same port a few seconds later): the box
    closes with what was typed still in it, and the people list empties,
    rather than a message vanishing into a closed socket; then the page
    reconnects by itself, rejoins as Lou, and what was typed goes out."""
    with session(shots, "web-chat-lost") as d:
        join(d, url, "Lou")
        d.find_element(By.ID, "text").send_keys("typed before the loss")
        print("ok: joined as Lou", flush=True)
        until("the loss noticed", lambda: d.find_element(By.ID, "status").text.startswith("Disconnected: reconnecting in"), timeout=30)
        until("the message box closed", lambda: not d.find_element(By.ID, "text").is_enabled())
        if d.find_element(By.ID, "send").is_enabled():
            raise Failure("the Send button still works after the connection closed")
        if d.find_element(By.ID, "text").get_attribute("value") != "typed before the loss":
            raise Failure("what was typed is gone")
        if d.find_elements(By.CSS_SELECTOR, "#people li"):
            raise Failure("the people list still shows who was online")
        if not any(w is None and "connection to the server was lost. Reconnecting" in t for w, t in lines(d)):
            raise Failure("no notice of the loss")
        print("ok: the box is closed, what was typed stays, the people list is empty", flush=True)
        d.save_screenshot(os.path.join(shots, "web-chat-lost.png"))
        until("back in the room", lambda: any(w is None and "Reconnected: back in the room as Lou" in t for w, t in lines(d)), timeout=60)
        until("the message box open again", lambda: d.find_element(By.ID, "text").is_enabled())
        if d.find_element(By.ID, "status").text != "Connected as Lou":
            raise Failure("status after the reconnect: " + d.find_element(By.ID, "status").text)
        until("Lou in the people list again",
              lambda: "Lou" in [li.get_attribute("textContent") for li in d.find_elements(By.CSS_SELECTOR, "#people li")])
        d.find_element(By.ID, "text").send_keys(Keys.ENTER)
        until("what was typed sent after the reconnect", lambda: ("Lou", "typed before the loss") in lines(d))
        print("ok: reconnected by itself as Lou, and what was typed went out")


def demo(url, shots, _):
    """`parley demo --web`: a visitor joins the demo room beside its bots and
    simulated people, is greeted, and sees them type and talk."""
    with session(shots, "demo-web") as d:
        join(d, url, "Visitor")
        until("the greeter welcomes the visitor", lambda: any(w == "greeter" and "Visitor" in t for w, t in lines(d)))
        print("ok: the demo's greeter welcomed the visitor")
        until("a simulated person typing", lambda: "typing" in d.find_element(By.ID, "typing").text)
        print("ok: simulated people are seen typing")
        until("a simulated person talking",
              lambda: any(w not in (None, "greeter", "moderator", "Visitor") for w, t in lines(d)), timeout=40)
        say(d, "hello, demo")
        until("the visitor's own line", lambda: ("Visitor", "hello, demo") in lines(d))
        print("ok: simulated people talk, and the visitor talks with them")
        d.save_screenshot(os.path.join(shots, "demo-web.png"))


def dashboard(url, shots, chat_url):
    """`parley run --http`'s dashboard, watched while a person talks to the
    bot in the web chat: online, counters rising, a plugin's errors, and no
    page without the token."""
    plain = url.split("?")[0]
    try:
        urllib.request.urlopen(plain, timeout=5)
        raise Failure("the dashboard answered a request without the token")
    except urllib.error.HTTPError as e:
        if e.code != 401:
            raise Failure(f"without the token: HTTP {e.code}, expected 401")
    print("ok: a request without the token is refused (401)")
    with session(shots, "dashboard") as d, session(shots, "dashboard-chat") as c:
        d.get(url)
        card = lambda: d.find_element(By.CSS_SELECTOR, 'article[data-bot="parley"]')
        until("the bot's card says online", lambda: "online for" in card().find_element(By.CLASS_NAME, "state").text)
        print("ok: the bot is shown online")
        # Its loop: named on the card, and listed with its bots and lateness once probed (every second).
        loop = card().find_element(By.CLASS_NAME, "facts").text.split("loop ")[1].split(" ")[0]
        line = lambda: d.find_element(By.CSS_SELECTOR, f'#loops li[data-loop="{loop}"]').text
        # (other tests' bots may share the process's loops: its count is at least this one)
        until("the bot's loop listed with its bots", lambda: re.match(rf"loop {loop}: [1-9]\d* bots?, [\d.]+ ms late \(at most [\d.]+ ms", line()))
        print(f"ok: the bot's loop is listed: {line()}")
        events = lambda: int(card().find_element(By.CSS_SELECTOR, 'tr[data-plugin="echo"] td.events').text)
        before = events()
        join(c, chat_url, "Yara")
        for _ in range(3):
            say(c, "!ping")
        until("pongs in the chat", lambda: sum(1 for w, t in lines(c) if (w, t) == ("parley", "pong")) == 3)
        until("the echo plugin's event count rises", lambda: events() >= before + 3)
        print(f"ok: the events counter rose from {before} to {events()}")
        say(c, "!boom")
        errors = lambda: card().find_element(By.CSS_SELECTOR, 'tr[data-plugin="broken"] td:nth-child(3)').text
        until("the broken plugin's error count", lambda: errors() == "runtime 1")
        print("ok: a plugin's errors are counted by kind")
        until("its log line", lambda: "broken" in d.find_element(By.ID, "logs").text)
        times = [float(li.get_attribute("data-time")) for li in d.find_elements(By.CSS_SELECTOR, "#logs li")]
        if times != sorted(times, reverse=True):
            raise Failure(f"the log lines are not newest first: {times}")
        print("ok: the plugin's error is among the last log lines, newest first")
        # A laptop's window: every card's plugin table fits, nothing scrolls sideways.
        d.set_window_size(1280, 800)
        wide = d.execute_script("return [...document.querySelectorAll('.card')].map(c => c.scrollWidth - c.clientWidth)")
        if any(w > 0 for w in wide):
            raise Failure(f"at 1280 px a card's table is wider than the card: {wide}")
        print("ok: at 1280 px every card's table fits")
        d.save_screenshot(os.path.join(shots, "dashboard.png"))


SCENARIOS = {"chat": chat, "hostile": hostile, "moderated": moderated, "lost": lost, "demo": demo, "dashboard": dashboard}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--scenario", choices=sorted(SCENARIOS), required=True)
    p.add_argument("--chat-url", help="dashboard: the web chat to talk to the bot in")
    p.add_argument("--screenshots", required=True)
    args = p.parse_args()
    os.makedirs(args.screenshots, exist_ok=True)
    try:
        SCENARIOS[args.scenario](args.url, args.screenshots, args.chat_url)
    except Failure as e:
        print(f"FAIL: {e}", flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
