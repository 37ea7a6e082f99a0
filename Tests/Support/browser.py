#!/usr/bin/env python3
"""Drives headless Chromium through the DevTools protocol over a pipe (--remote-debugging-pipe: JSON
messages ending in NUL on descriptors 3 and 4), as a person would: load a page, save a screenshot, press the
button labelled LABEL, and print the text of the page that the press led to.

usage: browser.py CHROMIUM URL SCREENSHOT LABEL
"""
import base64
import json
import os
import subprocess
import sys
import tempfile

chromium, url, screenshot, label = sys.argv[1:5]
to_browser_read, to_browser_write = os.pipe()
from_browser_read, from_browser_write = os.pipe()
profile = tempfile.mkdtemp(prefix="spool-chromium-")


def child_fds():
    # Chromium reads commands on 3 and writes answers on 4. Copied out of the way first: the pipes may
    # already be 3 or 4, and dup2 onto the same number would leave them close-on-exec.
    commands, answers = os.dup(to_browser_read), os.dup(from_browser_write)
    os.dup2(commands, 3)
    os.dup2(answers, 4)


browser = subprocess.Popen(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
     "--remote-debugging-pipe", "--user-data-dir=" + profile, "--window-size=1280,1000", "about:blank"],
    # Not closed after child_fds ran: subprocess would close 3 and 4 too.
    close_fds=False, preexec_fn=child_fds,
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_browser_read)
os.close(from_browser_write)
writer = os.fdopen(to_browser_write, "wb", buffering=0)
reader = os.fdopen(from_browser_read, "rb", buffering=0)
pending = b""
next_id = 0


def receive():
    global pending
    while b"\0" not in pending:
        chunk = reader.read(65536)
        if not chunk:
            sys.exit("chromium closed the pipe")
        pending += chunk
    message, pending = pending.split(b"\0", 1)
    return json.loads(message)


def send(method, params=None, session=None, wait_event=None):
    """Sends one command and returns its result; with wait_event, also waits for that event."""
    global next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    writer.write(json.dumps(message).encode() + b"\0")
    result, seen = None, wait_event is None
    while result is None or not seen:
        answer = receive()
        if answer.get("id") == next_id:
            if "error" in answer:
                sys.exit(f"{method}: {answer['error']}")
            result = answer["result"]
        elif wait_event and answer.get("method") == wait_event:
            seen = True
    return result


target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
send("Page.enable", session=session)
send("Page.navigate", {"url": url}, session=session, wait_event="Page.loadEventFired")
shot = send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=session)
with open(screenshot, "wb") as file:
    file.write(base64.b64decode(shot["data"]))
scripts = send("Runtime.evaluate", {"expression": "document.scripts.length", "returnByValue": True}, session=session)
print("scripts: %d" % scripts["result"]["value"])
before = send("Runtime.evaluate", {"expression": "document.body.innerText", "returnByValue": True}, session=session)
print(before["result"]["value"])
print("--- after the press ---")
# The press: a click on the button, as a mouse would give it; the form posts and the next page loads.
press = ("(() => { const b = [...document.querySelectorAll('button')].find(b => b.textContent === %s);"
         " if (!b) return false; b.click(); return true; })()") % json.dumps(label)
pressed = send("Runtime.evaluate", {"expression": press, "returnByValue": True}, session=session,
               wait_event="Page.loadEventFired")
if not pressed["result"].get("value"):
    sys.exit(f"no button labelled {label}")
text = send("Runtime.evaluate", {"expression": "document.body.innerText", "returnByValue": True}, session=session)
print(text["result"]["value"])
try:
    send("Browser.close")
except SystemExit:
    pass
browser.wait(timeout=30)
