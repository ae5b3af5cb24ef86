"""Helpers of the dashboard's browser tests: the `optimist dashboard` process, headless Chromium
driven by Selenium (Debian's chromium, chromium-driver and python3-selenium), waits and pixels."""
import os
import selectors
import shutil
import signal
import subprocess
import tempfile

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as e:  # a machine that never ran the setup step
    raise SystemExit(f"python3-selenium is missing ({e}); run scripts/install-deps.sh")

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Without the background-networking flags Chromium keeps trying to reach the internet, which
# this machine cannot, and gets slow.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars"]
TIMEOUT = 90  # seconds: generous for a loaded 2-core machine; waits end as soon as the condition holds


class Dashboard:
    """`optimist dashboard ARGS --port 0` on 127.0.0.1; the URL is read from its first line."""

    def __init__(self, optimist, args):
        self.proc = subprocess.Popen([optimist, "dashboard", *args, "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=TIMEOUT):
            self.stop()
            raise AssertionError("optimist dashboard printed no address")
        line = self.proc.stdout.readline()
        marker = "http://127.0.0.1:"
        if marker not in line:
            self.stop()
            raise AssertionError(f"unexpected start-up line {line!r}; stderr: {self.proc.stderr.read()}")
        self.url = line[line.index(marker):].split()[0]

    def stop(self):
        """SIGTERM, as a user's Ctrl-C: the server must end cleanly with status 0."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("optimist dashboard did not stop on SIGTERM")


class Browser:
    def __init__(self, width=1400, height=1000):
        for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
            if not os.path.exists(path):
                raise SystemExit(f"{path} is missing; run scripts/install-deps.sh (Debian package {package})")
        self.profile = tempfile.mkdtemp(prefix="optimist-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in CHROMIUM_FLAGS + [f"--user-data-dir={self.profile}", f"--window-size={width},{height}"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(TIMEOUT)

    def quit(self):
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, what, condition_js, *args, timeout=TIMEOUT):
        """Waits until the script returns a truthy value; fails naming `what` and the last value."""
        last = [None]

        def check(_):
            last[0] = self.js(condition_js, *args)
            return last[0]

        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(check)
        except Exception:
            raise AssertionError(f"timed out waiting for {what} (last value {last[0]!r}); "
                                 f"browser log: {self.errors()}") from None

    def errors(self):
        return [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def screenshot(self, path, height=None):
        """A screenshot of the page (`height` px tall, or the whole page)."""
        full = self.js("return document.documentElement.scrollHeight")
        width = self.js("return window.outerWidth")
        self.driver.set_window_size(width, height or full)
        self.wait("charts resized", "return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
        self.driver.save_screenshot(path)

    def rows(self):
        return self.js("return document.querySelectorAll('#trials tbody tr').length")

    def colored_pixels(self, chart_id):
        """Saturated pixels in a chart's canvases: data marks are coloured, axes and text grey."""
        return self.js("""
            let n = 0;
            for (const c of document.querySelectorAll('#' + arguments[0] + ' canvas')) {
              const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
              for (let i = 0; i < d.length; i += 4) {
                const hi = Math.max(d[i], d[i + 1], d[i + 2]), lo = Math.min(d[i], d[i + 1], d[i + 2]);
                if (d[i + 3] > 128 && hi - lo > 60) n++;
              }
            }
            return n;""", chart_id)

    def echarts_option(self, chart_id):
        return self.js("return echarts.getInstanceByDom(document.getElementById(arguments[0])).getOption()", chart_id)
