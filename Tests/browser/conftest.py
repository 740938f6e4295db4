"""Browser suite fixtures: a real modal-host serving web/, and headless Chromium."""
import os
import sys

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from hosts import Host, OIDCProvider, ROOT  # noqa: E402

SHOTS = os.path.join(ROOT, "artifacts", "screenshots")


@pytest.fixture
def host():
    server = Host("--web-root", os.path.join(ROOT, "web"), "--retention", "30")
    yield server
    server.stop()


def make_driver(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}", "--disable-popup-blocking"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_window_size(width, height)
    return driver


@pytest.fixture(params=[(1920, 1080), (390, 844)], ids=["kiosk", "phone"])
def browser(request):
    driver = make_driver(*request.param)
    driver.size_name = request.node.callspec.id if hasattr(request.node, "callspec") else "kiosk"
    yield driver
    driver.quit()


@pytest.fixture
def kiosk_browser():
    driver = make_driver(1920, 1080)
    driver.size_name = "kiosk"
    yield driver
    driver.quit()


@pytest.fixture
def oidc_host():
    provider = OIDCProvider()
    server = Host("--web-root", os.path.join(ROOT, "web"), "--oidc-issuer", provider.issuer,
                  "--oidc-client-id", "remote-modal-demo")
    yield server
    server.stop()
    provider.stop()
