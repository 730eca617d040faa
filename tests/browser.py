"""Open a report in headless Chromium and record what a reader's browser would see (a test
helper of tests/test_audit_browser.py; not part of the package).

:func:`check_in_browser` starts Chromium (Debian's ``chromium`` package: ``apt-get install
chromium``) with no network use of its own, loads the page from its file, and returns what
it found: every image with its natural size, console messages and uncaught errors, every
URL the page asked for, and optionally a PNG screenshot. It talks to the browser through
the Chrome DevTools Protocol over a pipe (``--remote-debugging-pipe``), with the standard
library only: no Selenium, Playwright or driver binary is needed.

The flags are those a closed network needs: without ``--disable-background-networking``,
``--disable-component-update`` and ``--disable-sync`` Chromium's own connections are refused
and reported as errors; a fresh ``--user-data-dir`` per run keeps runs independent.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM_FLAGS", "BrowserCheck", "check_in_browser", "find_chromium"]

#: Flags every run gets (the closed-network set, plus headless rendering).
CHROMIUM_FLAGS: tuple[str, ...] = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--hide-scrollbars",
    "--mute-audio", "--remote-debugging-pipe",
)
#: Where :func:`find_chromium` looks, in order (``$EMBIAS_CHROMIUM`` first).
CHROMIUM_NAMES: tuple[str, ...] = ("chromium", "chromium-browser", "google-chrome")

#: What the page is asked once it has loaded: every image, whether it decoded, its size.
_IMAGES_JS = ("JSON.stringify(Array.from(document.images).map(i => ({alt: i.alt, "
              "complete: i.complete, naturalWidth: i.naturalWidth, "
              "naturalHeight: i.naturalHeight})))")


@dataclass(frozen=True)
class BrowserCheck:
    """What Chromium saw when it loaded a page.

    Attributes
    ----------
    images
        One record per ``<img>``: ``alt``, ``complete``, ``naturalWidth``, ``naturalHeight``.
    console_errors
        Console messages of level error, uncaught exceptions and browser log errors (e.g.
        a resource that failed to load), as text.
    requests
        Every URL the page requested (the page itself included).
    title
        The document's title.
    page_height
        Height of the laid-out document in CSS pixels.
    screenshot
        PNG bytes of the page, when one was asked for.
    pdf
        The page printed to PDF (A4, print style sheet), when asked for.
    """

    images: list[dict[str, Any]]
    console_errors: list[str]
    requests: list[str]
    title: str
    page_height: float
    screenshot: bytes | None = field(default=None, repr=False)
    pdf: bytes | None = field(default=None, repr=False)

    @property
    def broken_images(self) -> list[str]:
        """Alt texts of the images that did not decode (natural width 0)."""
        return [str(i["alt"]) for i in self.images
                if not i["complete"] or not i["naturalWidth"] > 0]


def find_chromium() -> str | None:
    """Path of a Chromium binary (``$EMBIAS_CHROMIUM``, then ``chromium`` … on ``PATH``),
    or ``None`` when there is none."""
    given = os.environ.get("EMBIAS_CHROMIUM")
    if given:
        return given if Path(given).is_file() else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class _Pipe:
    """The DevTools protocol over Chromium's pipe: JSON messages ended by a NUL byte."""

    def __init__(self, write_fd: int, read_fd: int, deadline: float) -> None:
        self._write = os.fdopen(write_fd, "wb", buffering=0)
        self._read = os.fdopen(read_fd, "rb", buffering=0)
        self._buffer = b""
        self._next_id = 0
        self.deadline = deadline
        self.events: list[dict[str, Any]] = []

    def close(self) -> None:
        for stream in (self._write, self._read):
            try:
                stream.close()
            except OSError:
                pass

    def _message(self) -> dict[str, Any]:
        import select

        while b"\0" not in self._buffer:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._read], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._read.fileno(), 1 << 20)
            if not chunk:
                raise ConnectionError("Chromium closed its DevTools pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(raw)

    def send(self, method: str, params: dict[str, Any] | None = None, *,
             session: str | None = None) -> dict[str, Any]:
        """Send one command; return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method,
                                   "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self._write.write(json.dumps(message).encode() + b"\0")
        while True:
            reply = self._message()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"Chromium: {method} failed: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        """Wait for the first event ``method`` (kept events included)."""
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._message()
            self.events.append(event)
            if event.get("method") == method:
                return event


def _errors(events: Sequence[dict[str, Any]]) -> list[str]:
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            found.append("console: " + " ".join(str(a.get("value", a.get("description", "")))
                                                 for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            found.append("exception: " + str(details.get("exception", {}).get(
                "description", details.get("text", ""))))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            found.append(f"log ({entry.get('source')}): {entry.get('text')} "
                         f"{entry.get('url', '')}".strip())
    return found


def check_in_browser(
    page: str | os.PathLike[str],
    *,
    chromium: str | None = None,
    width: int = 1200,
    height: int = 900,
    screenshot: bool | str = False,
    pdf: bool = False,
    timeout: float = 60.0,
) -> BrowserCheck:
    """Load an HTML file in headless Chromium and report what it saw.

    Parameters
    ----------
    page
        The HTML file.
    chromium
        The browser binary (default :func:`find_chromium`).
    width, height
        Viewport size in CSS pixels.
    screenshot
        ``True``: a PNG of the whole page; ``"viewport"``: of the first ``height`` pixels
        only; ``False``: none.
    pdf
        Also print the page to PDF (A4, as a reader's "print" would, with the page's
        print style sheet).
    timeout
        Seconds to wait for the browser at most.

    Returns
    -------
    BrowserCheck

    Raises
    ------
    FileNotFoundError
        No such page, or no Chromium (the message says how to install it).
    """
    page = Path(page).resolve()
    if not page.is_file():
        raise FileNotFoundError(f"no page to open: {str(page)!r}")
    binary = chromium or find_chromium()
    if binary is None:
        raise FileNotFoundError("no Chromium found (looked for $EMBIAS_CHROMIUM and "
                                f"{', '.join(CHROMIUM_NAMES)} on PATH); on Debian/Ubuntu: "
                                "apt-get install chromium")
    profile = tempfile.mkdtemp(prefix="embias-chromium-")
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    # the protocol reads commands on fd 3 and writes on fd 4: the browser's ends are first
    # copied above 10 here (so neither is overwritten by the other), then bash (dash takes
    # no fd above 9) puts them on 3 and 4 and becomes the browser: no Python runs between
    # fork and exec, as a preexec_fn would in a process with threads
    import fcntl

    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_r, from_browser_w)]
    process = subprocess.Popen(
        [shutil.which("bash") or "/bin/bash", "-c",
         f'exec "$0" "$@" 3<&{high[0]} 4>&{high[1]}', binary,
         *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
         "about:blank"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        pass_fds=high)
    for fd in high:
        os.close(fd)
    os.close(to_browser_r)
    os.close(from_browser_w)
    pipe = _Pipe(to_browser_w, from_browser_r, time.monotonic() + timeout)
    try:
        target = pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.send("Target.attachToTarget", {"targetId": target,
                                                      "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            pipe.send(f"{domain}.enable", session=session)
        pipe.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1,
                   "mobile": False}, session=session)
        pipe.events.clear()
        pipe.send("Page.navigate", {"url": page.as_uri()}, session=session)
        pipe.wait_for("Page.loadEventFired")

        def evaluate(expression: str) -> Any:
            result = pipe.send("Runtime.evaluate", {"expression": expression,
                                                    "returnByValue": True}, session=session)
            return result.get("result", {}).get("value")

        images = json.loads(evaluate(_IMAGES_JS))
        title = str(evaluate("document.title"))
        page_height = float(evaluate("document.documentElement.scrollHeight"))
        shot = None
        if screenshot:
            params: dict[str, Any] = {"format": "png"}
            if screenshot != "viewport":
                params |= {"captureBeyondViewport": True,
                           "clip": {"x": 0, "y": 0, "width": width, "height": page_height,
                                    "scale": 1}}
            shot = base64.b64decode(pipe.send("Page.captureScreenshot", params,
                                              session=session)["data"])
        printed = None
        if pdf:
            printed = base64.b64decode(pipe.send(
                "Page.printToPDF", {"preferCSSPageSize": True, "printBackground": True},
                session=session)["data"])
        requests = [e["params"]["request"]["url"] for e in pipe.events
                    if e.get("method") == "Network.requestWillBeSent"]
        errors = _errors(pipe.events)
        try:
            pipe.send("Browser.close")
        except (ConnectionError, RuntimeError, TimeoutError):
            pass
    finally:
        pipe.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)
    return BrowserCheck(images=images, console_errors=errors, requests=requests, title=title,
                        page_height=page_height, screenshot=shot, pdf=printed)
