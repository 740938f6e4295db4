"""The kiosk's unattended mode (`--script`, on the robot of the client core) passes every
scenario: the script (kiosk-script.json) answers the alerts, the sheet and the composers, picks
files for the pickers (written next to a copy of the script: its paths are relative to its
folder), follows both web authentications as a phone would, and answers the custom kind with
the JSON it gives (so the kiosk advertises `custom:conformance`)."""
import os
import shutil
import subprocess

from conformance_host import ROOT, ConformanceHost, verdicts

KIOSK = os.environ.get("KIOSK_BIN", os.path.join(ROOT, ".build", "debug", "kiosk"))
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kiosk-script.json")
# The files the script picks, at least as large as the pickers' texts ask. Each starts as its
# format does (the kiosk judges a picked file by its first bytes before it sends anything, as
# the host does): the PNG signature, an ID3v2 tag; the rest is random.
PNG = b"\x89PNG\r\n\x1a\n"
ID3 = b"ID3\x03\x00"
FILES = {"photo-1.png": (PNG, 40_000), "photo-2.png": (PNG, 40_000), "song.mp3": (ID3, 150_000),
         "large.png": (PNG, 300_000)}


def test_the_scripted_kiosk_passes_every_scenario(tmp_path):
    script = tmp_path / "kiosk-script.json"
    shutil.copy(SCRIPT, script)
    for name, (head, size) in FILES.items():
        (tmp_path / name).write_bytes(head + os.urandom(size - len(head)))
    host = ConformanceHost()
    try:
        kiosk = subprocess.run([KIOSK, host.url, "--name", "kiosk-conformance", "--script", str(script)],
                               capture_output=True, text=True, timeout=150)
        status, output = host.finish()
    finally:
        host.stop()
    assert status == 0, output + kiosk.stdout + kiosk.stderr
    assert len(verdicts(output)) == 15, output
    assert set(verdicts(output).values()) == {"PASS"}, output
    assert "conformance: all 15 scenarios passed" in output, output
    assert kiosk.returncode == 0, kiosk.stdout + kiosk.stderr
