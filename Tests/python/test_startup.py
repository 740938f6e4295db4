"""Starting the real modal-host as a newcomer would: from another folder, with a wrong web root."""
import subprocess
import urllib.error
import urllib.request

from hosts import BINARY, Host, free_port


def test_started_from_another_folder_the_host_serves_the_page(tmp_path):
    host = Host(cwd=tmp_path)   # no web/ here: the host finds the checkout's own
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{host.port}/", timeout=5) as reply:
            assert reply.status == 200
            assert "<title>" in reply.read().decode()
    finally:
        host.stop()


def test_a_web_root_without_a_page_stops_the_host_with_words_not_a_400(tmp_path):
    result = subprocess.run(
        [BINARY, "--port", str(free_port()), "--web-root", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=20)
    assert result.returncode == 2
    assert f"'{tmp_path}' has no index.html" in result.stderr
    assert "--web-root none" in result.stderr


def test_web_root_none_serves_no_page_but_the_protocol(tmp_path):
    host = Host("--web-root", "none", cwd=tmp_path)
    try:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{host.port}/", timeout=5)
            raise AssertionError("a page was served")
        except urllib.error.HTTPError as refused:
            assert refused.code == 404
    finally:
        host.stop()
