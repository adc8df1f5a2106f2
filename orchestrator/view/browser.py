"""A headless Chromium (Debian's `chromium`) driven over the DevTools
protocol: the view's screenshots (tools/view-screenshot) and its tests open
the page with it, read its DOM and capture it, as a user's browser would
show it. Needs python3-websocket."""
from __future__ import annotations

import base64
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from typing import Any

DEVTOOLS_LINE = re.compile(rb"DevTools listening on (ws://[^\s]+)")


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page. A context manager: the browser
    (its whole process group, which it alone is in) ends on exit."""

    def __init__(self, width: int = 1400, height: int = 900, start_timeout: float = 60.0) -> None:
        exe = shutil.which("chromium")
        if exe is None:
            raise BrowserError("chromium not found (sudo make deps)")
        try:
            import websocket  # python3-websocket
        except ImportError:
            raise BrowserError("python3-websocket missing (sudo make deps)") from None
        self._ws_mod = websocket
        self._profile = tempfile.mkdtemp(prefix="dcn-view-chromium-")
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", f"--window-size={width:d},{height:d}",
                f"--user-data-dir={self._profile}", "--remote-debugging-port=0", "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, start_new_session=True)
        self._id = 0
        self._ws = None
        try:
            browser_ws = self._devtools_url(start_timeout)
            port = int(re.match(r"ws://[^:/]+:(\d+)/", browser_ws).group(1))
            self._ws = self._attach(port, start_timeout)
        except BaseException:
            self.close()
            raise

    def _devtools_url(self, timeout):
        buf, end = b"", time.time() + timeout
        while time.time() < end:
            r, _, _ = select.select([self.proc.stderr], [], [], 0.5)
            if r:
                d = os.read(self.proc.stderr.fileno(), 65536)
                if not d:
                    break
                buf += d
                m = DEVTOOLS_LINE.search(buf)
                if m:
                    return m.group(1).decode()
            elif self.proc.poll() is not None:
                break
        raise BrowserError("chromium did not start: " + buf.decode(errors="replace")[-500:].strip())

    def _attach(self, port, timeout):
        end = time.time() + timeout
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{port:d}/json/list", timeout=10) as r:
                pages = [t for t in json.load(r) if t.get("type") == "page"]
            if pages or time.time() > end:
                break
            time.sleep(0.2)
        if not pages:
            raise BrowserError("chromium opened no page")
        return self._ws_mod.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=timeout, suppress_origin=True)

    def call(self, method: str, **params: Any) -> dict:
        """One DevTools command; its result (events in between are skipped)."""
        self._id += 1
        self._ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            msg = json.loads(self._ws.recv())
            if msg.get("id") == self._id:
                if "error" in msg:
                    raise BrowserError(f'{method}: {msg["error"].get("message")}')
                return msg.get("result", {})

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able)."""
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            raise BrowserError(f'{expression}: {r["exceptionDetails"].get("text")}')
        return r.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float, every: float = 0.05) -> tuple:
        """Polls expression until it is truthy: (its value, seconds waited);
        (the last value, None) at the timeout. An expression that throws
        (the page still loading) counts as not yet."""
        t0 = time.time()
        while True:
            try:
                v = self.eval(expression)
            except BrowserError as e:
                v, thrown = None, str(e)
            else:
                thrown = None
            if v:
                return v, time.time() - t0
            if time.time() - t0 > timeout:
                return (thrown if thrown else v), None
            time.sleep(every)

    def screenshot(self, path: str) -> None:
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        with open(path, "wb") as f:
            f.write(data)

    def cpu_seconds(self) -> float:
        """The CPU time of the browser's processes alive now (its process
        group, with what their reaped children took)."""
        ticks = 0
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat") as f:
                    st = f.read()
            except OSError:
                continue
            v = st[st.rindex(")") + 2:].split()
            if int(v[2]) == self.proc.pid:  # its process group
                ticks += sum(int(x) for x in v[11:15])  # utime, stime, cutime, cstime
        return ticks / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        if self._ws is not None:
            try:
                self._ws.close()
            except OSError:
                pass
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)  # its own group (start_new_session): only its processes
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc.stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.close()
        return False
