"""A page opened in headless Firefox through its Marionette protocol, for check_page.py: the DOM
once the page's script has written its self-check, and a screenshot.

Marionette is Firefox's own remote protocol (what geckodriver speaks to it; geckodriver is not
packaged for Debian): a TCP socket carrying "LENGTH:JSON" messages, a command being
[0, id, name, parameters] and its answer [1, id, error, result]. Standard library only.
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

FIREFOX_NAMES = ("firefox-esr", "firefox")
CONNECT_TIMEOUT_S = 60
# Preferences of a quiet throwaway profile: no first-run pages, updates or telemetry.
PREFERENCES = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.aboutwelcome.enabled": False,
    "app.update.disabledForTesting": True,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
}
SELF_CHECK_SCRIPT = ("const check = document.getElementById('runner-self-check');"
                     "return check === null ? null : check.textContent;")


def binary():
    """Firefox's path, or None where it is not installed."""
    return next(filter(None, map(shutil.which, FIREFOX_NAMES)), None)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_profile(folder, port):
    lines = [f'user_pref("marionette.port", {port});']
    lines += [f"user_pref({json.dumps(name)}, {json.dumps(value)});"
              for name, value in PREFERENCES.items()]
    with open(os.path.join(folder, "user.js"), "w", encoding="utf-8") as prefs:
        prefs.write("\n".join(lines) + "\n")


class Marionette:
    """One connection to a Firefox started with --marionette."""

    def __init__(self, port, process, deadline):
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError(f"firefox exited with {process.returncode}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"firefox did not open Marionette's port {port}")
                time.sleep(0.2)
        self.sock.settimeout(max(1.0, deadline - time.monotonic()))
        self.buffer = b""
        self.next_id = 0
        self.read_message()  # the server's hello: its protocol version

    def read_message(self):
        while b":" not in self.buffer:
            self.receive()
        length, _, rest = self.buffer.partition(b":")
        size = int(length)
        self.buffer = rest
        while len(self.buffer) < size:
            self.receive()
        message, self.buffer = self.buffer[:size], self.buffer[size:]
        return json.loads(message)

    def receive(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise RuntimeError("firefox closed Marionette's connection")
        self.buffer += chunk

    def command(self, name, parameters=None):
        self.next_id += 1
        body = json.dumps([0, self.next_id, name, parameters or {}]).encode()
        self.sock.sendall(str(len(body)).encode() + b":" + body)
        while True:
            kind, message_id, error, result = self.read_message()
            if kind == 1 and message_id == self.next_id:
                break
        if error:
            raise RuntimeError(f"firefox: {name}: {error.get('error')}: {error.get('message')}")
        return result.get("value") if isinstance(result, dict) else result

    def close(self):
        self.sock.close()


def self_check_written(session, deadline):
    """Waits until the page's script wrote its self-check (or the deadline passes)."""
    while time.monotonic() < deadline:
        if session.command("WebDriver:ExecuteScript",
                           {"script": SELF_CHECK_SCRIPT, "args": []}) is not None:
            return
        time.sleep(0.1)


def inspect(session, page, screenshot, deadline):
    session.command("WebDriver:NewSession", {"capabilities": {}})
    session.command("WebDriver:SetWindowRect", {"width": 1400, "height": 3000})
    session.command("WebDriver:Navigate", {"url": "file://" + os.path.abspath(page)})
    self_check_written(session, deadline)
    dom = session.command("WebDriver:ExecuteScript",
                          {"script": "return document.documentElement.outerHTML;", "args": []})
    if screenshot:
        png = session.command("WebDriver:TakeScreenshot", {"full": False})
        with open(screenshot, "wb") as image:
            image.write(base64.b64decode(png))
    session.command("Marionette:Quit", {"flags": ["eForceQuit"]})
    return dom


def dom_and_screenshot(firefox, page, screenshot, timeout_s):
    """The page's DOM (its outer HTML) once drawn; a 1400x3000 screenshot saved when asked."""
    deadline = time.monotonic() + timeout_s
    with tempfile.TemporaryDirectory(prefix="runner-firefox-") as folder:
        profile = os.path.join(folder, "profile")
        os.mkdir(profile)
        port = free_port()
        write_profile(profile, port)
        with open(os.path.join(folder, "firefox.log"), "w+", encoding="utf-8") as log:
            process = subprocess.Popen(
                [firefox, "--headless", "--marionette", "--no-remote", "--profile", profile,
                 "about:blank"],
                stdout=log, stderr=log, env={**os.environ, "MOZ_HEADLESS": "1"})
            try:
                return drive(process, port, page, screenshot, deadline)
            except RuntimeError as error:
                log.seek(0)
                tail = log.read().strip()[-400:]
                raise RuntimeError(f"{error}{': ' + tail if tail else ''}") from error
            finally:
                stop(process)


def drive(process, port, page, screenshot, deadline):
    try:
        session = Marionette(port, process, min(deadline, time.monotonic() + CONNECT_TIMEOUT_S))
        try:
            return inspect(session, page, screenshot, deadline)
        finally:
            session.close()
    except (OSError, ValueError) as error:
        raise RuntimeError(f"firefox: {error}") from error


def stop(process):
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
