"""Browser suite fixtures: real modal-hosts serving web/, and headless Chromium (one per
size for the whole run, reset between tests: every host has its own port, so its own
origin and session storage)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hosts import OIDCProvider, ROOT  # noqa: E402
from browser_support import CuttableProxy, Page, RestartableHost, make_driver  # noqa: E402

WEB = os.path.join(ROOT, "web")


@pytest.fixture
def host():
    server = RestartableHost("--web-root", WEB, "--retention", "30")
    yield server
    server.stop()


@pytest.fixture
def proxy(host):
    """The host behind a proxy the test can cut."""
    middle = CuttableProxy(host.port)
    yield middle
    middle.stop()


@pytest.fixture(scope="session")
def drivers():
    made = {}

    def get(size):
        if size not in made:
            made[size] = make_driver(size)
        return made[size]

    yield get
    for driver in made.values():
        driver.quit()


@pytest.fixture
def desktop(drivers):
    page = Page(drivers("desktop"), "desktop")
    page.reset()
    yield page


@pytest.fixture
def phone(drivers):
    page = Page(drivers("phone"), "phone")
    page.reset()
    yield page


@pytest.fixture
def kiosk(drivers):
    """A portrait kiosk screen, 1080x1920."""
    page = Page(drivers("kiosk"), "kiosk")
    page.reset()
    yield page


@pytest.fixture(params=["desktop", "phone"])
def page(request, drivers):
    page = Page(drivers(request.param), request.param)
    page.reset()
    yield page


@pytest.fixture
def oidc_host():
    provider = OIDCProvider()
    server = RestartableHost("--web-root", WEB, "--oidc-issuer", provider.issuer, "--oidc-client-id", "remote-modal-demo")
    yield server
    server.stop()
    provider.stop()
