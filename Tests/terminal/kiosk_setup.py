"""The setup the kiosk's terminal tests repeat: a modal-host, optionally a proxy in front of it
that can cut and refuse, and the kiosk in tmux against it; all closed afterwards, whatever the
test did."""
import contextlib
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from hosts import Host  # noqa: E402
from test_kiosk import KIOSK, Tmux  # noqa: E402
from test_kiosk_unattended import Proxy  # noqa: E402


@contextlib.contextmanager
def host_and_kiosk(tag, name="lobby-1", proxied=False, size=None, host_flags=("--retention", "30"), kiosk_flags=()):
    """Yields `(host, proxy, kiosk)`: a `Host(*host_flags)`, a `Proxy` in front of it when
    `proxied` (else None), and a kiosk named `name` in group `lobby` in a tmux session tagged
    `tag`, resized to `size` (columns, rows) when given, run with `kiosk_flags` too. Closes
    the three afterwards."""
    host = Host(*host_flags)
    proxy = kiosk = None
    try:
        proxy = Proxy(host.port) if proxied else None
        port = proxy.port if proxy else host.port
        kiosk = Tmux(f"kiosk-{tag}-{os.getpid()}-{time.monotonic_ns()}",
                     " ".join([f"{KIOSK} ws://127.0.0.1:{port}/ws --name {name} --group lobby", *kiosk_flags]))
        if size:
            subprocess.run(["tmux", "resize-window", "-t", kiosk.name, "-x", str(size[0]), "-y", str(size[1])],
                           check=True)
        yield host, proxy, kiosk
    finally:
        if kiosk:
            kiosk.close()
        if proxy:
            proxy.close()
        host.stop()
