#!/usr/bin/env python3
"""Drives the embedded server's web chat in headless Chromium (Debian's
chromium and chromium-driver, through selenium) and checks what a person
sees. The Swift test (WebChatBrowserTests) starts the server, the bots and a
simulated person who keeps typing, then runs this.

    .venv/bin/python Tests/Fixtures/python/browser_chat.py --url http://127.0.0.1:PORT/ \
        --scenario chat|hostile|demo --screenshots .build/screenshots

Prints one `ok: ...` line per step; on a failure, `FAIL: ...` and exit 1
(with a screenshot of the moment, `*-failure.png`).
"""

import argparse
import os
import sys
import time

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


def chat(url, shots):
    a = browser()
    b = None
    try:
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

        b = browser()
        join(b, url, "Xavier")
        say(a, "hello from the first window")
        until("the second window sees the first's message",
              lambda: ("Wanda", "hello from the first window") in lines(b))
        print("ok: a second window sees the first person's messages")
        a.find_element(By.ID, "leave").click()
        until("the second window sees Wanda leave", lambda: any(w is None and "Wanda left" in t for w, t in lines(b)))
        print("ok: left, and the other window saw it")
        b.save_screenshot(os.path.join(shots, "web-chat-second-window.png"))
    except Exception:
        a.save_screenshot(os.path.join(shots, "web-chat-failure.png"))
        raise
    finally:
        a.quit()
        if b:
            b.quit()


def hostile(url, shots):
    d = browser()
    try:
        nick = "<img src=x onerror=alert(1)>"   # within the 32 characters a name may have
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
    except Exception:
        d.save_screenshot(os.path.join(shots, "web-chat-hostile-failure.png"))
        raise
    finally:
        d.quit()


def demo(url, shots):
    """`parley demo --web`: a visitor joins the demo room beside its bots and
    simulated people, is greeted, and sees them type and talk."""
    d = browser()
    try:
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
    except Exception:
        d.save_screenshot(os.path.join(shots, "demo-web-failure.png"))
        raise
    finally:
        d.quit()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--scenario", choices=["chat", "hostile", "demo"], required=True)
    p.add_argument("--screenshots", required=True)
    args = p.parse_args()
    os.makedirs(args.screenshots, exist_ok=True)
    try:
        {"chat": chat, "hostile": hostile, "demo": demo}[args.scenario](args.url, args.screenshots)
    except Failure as e:
        print(f"FAIL: {e}", flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
