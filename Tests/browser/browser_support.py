"""Helpers for the browser suite."""
import os

from hosts import ROOT

SHOTS = os.path.join(ROOT, "artifacts", "screenshots")


def screenshot(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    size = getattr(driver, "size_name", "shot")
    driver.save_screenshot(os.path.join(SHOTS, f"{name}-{size}.png"))
