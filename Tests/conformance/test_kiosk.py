"""The kiosk's unattended mode (`--script`, on the robot of the client core) passes every
scenario a script can follow: the alerts, the sheet, the composers, the drops and the restart
(a kiosk script has no files to pick and no browser to open)."""
import os
import subprocess

from conformance_host import ROOT, ConformanceHost, verdicts

KIOSK = os.environ.get("KIOSK_BIN", os.path.join(ROOT, ".build", "debug", "kiosk"))
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kiosk-script.json")
SCENARIOS = ["alert", "sheet", "mail", "message", "unknown-values", "dismiss", "drop-dialog", "drop-answer", "restart"]


def test_the_scripted_kiosk_passes_every_scenario_a_script_can_follow():
    host = ConformanceHost(*SCENARIOS)
    try:
        kiosk = subprocess.run([KIOSK, host.url, "--name", "kiosk-conformance", "--script", SCRIPT],
                               capture_output=True, text=True, timeout=120)
        status, output = host.finish()
    finally:
        host.stop()
    assert status == 0, output + kiosk.stdout + kiosk.stderr
    assert verdicts(output) == {name: "PASS" for name in SCENARIOS}, output
    assert kiosk.returncode == 0, kiosk.stdout + kiosk.stderr
