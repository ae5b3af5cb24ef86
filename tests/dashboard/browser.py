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

    def screenshot(self, path):
        """A screenshot of the whole page, every chart drawn."""
        self.js("window.scrollTo(0, 0)")
        self.driver.set_window_size(self.js("return window.outerWidth"), self.js("return document.documentElement.scrollHeight"))
        self.wait("every chart drawn at full height",
                  "return [...document.querySelectorAll('.chart')].every(c => c.dataset.drawn !== undefined)")
        self.wait("a frame", "return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
        self.driver.save_screenshot(path)

    def drawn(self, chart_id, items):
        """Scrolls the chart into view (charts draw on screen only) and waits until it drew `items`."""
        self.js("document.getElementById(arguments[0]).scrollIntoView({block: 'center'})", chart_id)
        self.wait(f"{chart_id} to draw {items}",
                  "return document.getElementById(arguments[0]).dataset.drawn === arguments[1]", chart_id, str(items))

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

    def measure_load(self, url):
        """Loads `url` and returns the page's own timings (ms after navigation start): trials in the
        page, cards and table ready, the charts of the first screen drawn; then scrolls to every
        other chart and adds each chart's first drawing time and the API requests' server times."""
        self.driver.get("about:blank")
        self.driver.get(url)
        self.wait("the study to load", "return document.body.dataset.state === 'ready'")
        first = self.wait("the first screen's charts", """
            const shown = [...document.querySelectorAll('.chart')].filter(c => c.getBoundingClientRect().top < innerHeight);
            return shown.every(c => c.dataset.drawn !== undefined) && shown.map(c => c.id)""")
        for chart in self.js("return [...document.querySelectorAll('.chart')].map(c => c.id)"):
            self.js("document.getElementById(arguments[0]).scrollIntoView({block: 'center'})", chart)
            self.wait(f"{chart} to draw", "return document.getElementById(arguments[0]).dataset.drawn !== undefined", chart)
        self.js("window.scrollTo(0, 0)")
        return self.js("""
            const at = (name) => performance.getEntriesByName(name)[0].startTime;
            return {data_ms: at('optimist-data'), ready_ms: at('optimist-ready'), first_screen: arguments[0],
                    first_screen_drawn_ms: Math.max(...arguments[0].map(id => at('optimist-drawn-' + id))),
                    requests: performance.getEntriesByType('resource').filter(e => e.name.includes('/api/'))
                      .map(e => ({url: e.name.slice(location.origin.length), server_ms: e.serverTiming[0].duration,
                                  bytes: e.encodedBodySize})),
                    draw_ms: Object.fromEntries(performance.getEntriesByType('measure')
                      .filter(m => m.name.startsWith('optimist-draw-')).map(m => [m.name.slice(14), m.duration]))};""",
                       first)


def describe_load(load):
    trials = [round(r["server_ms"], 1) for r in load["requests"] if "/api/trials" in r["url"]]
    return (f"trials in the page {load['data_ms']:.0f} ms, cards and table {load['ready_ms']:.0f} ms, first screen "
            f"drawn ({', '.join(load['first_screen'])}) {load['first_screen_drawn_ms']:.0f} ms after navigation start; "
            f"server time of /api/trials {trials} ms; first drawing of each chart "
            f"{ {k: round(v) for k, v in load['draw_ms'].items()} } ms")
