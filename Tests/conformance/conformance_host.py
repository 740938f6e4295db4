"""Start remote-modal-conformance on a free loopback port and collect its report."""
import os
import re
import subprocess
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("CONFORMANCE_BIN", os.path.join(ROOT, ".build", "debug", "remote-modal-conformance"))


class ConformanceHost:
    """The conformance host as a process: `url` once listening, `finish()` its exit status and output."""

    def __init__(self, *scenarios, timeout=10, connect_timeout=30, web_root=None):
        args = [BINARY, "--port", "0", "--timeout", str(timeout), "--connect-timeout", str(connect_timeout)]
        if web_root:
            args += ["--web-root", web_root]
        for scenario in scenarios:
            args += ["--scenario", scenario]
        self.process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        match = None
        while match is None and len(self.lines) < 20:
            line = self.process.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            match = re.search(r"^listening on ws://127\.0\.0\.1:(\d+)/ws", line)
        if not match:
            self.process.kill()
            raise RuntimeError(f"the conformance host did not start: {''.join(self.lines)!r}")
        self.port = int(match.group(1))
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def url(self):
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def page(self):
        return f"http://127.0.0.1:{self.port}/"

    def finish(self, timeout=120):
        """Waits for the run to end (every scenario is bounded); returns (status, output)."""
        try:
            status = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise
        self._reader.join(timeout=5)
        return status, "".join(self.lines)

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def verdicts(output):
    """{scenario: PASS|FAIL|SKIP} from a report."""
    return {match.group(2): match.group(1) for match in re.finditer(r"^(PASS|FAIL|SKIP) (\S+)", output, re.M)}
