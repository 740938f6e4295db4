"""Issue #32 (cold trial), where things sit on screen: at 1080x1920 the country sheet opens in
the middle of the screen as alerts do, 16 px off the edges, over no control (anchored under
its own it sat at the top edge, over the page's text, against the right edge); on a phone it
rises from the bottom and on a desktop it sits under its control, each whole on screen with
no scrollbar and no scrolling; on a phone a toast leaves the header's connection status readable (a toast over
an open sheet covered it). Each failed on the page before its fix."""
import json

MARGIN = 16
BOX = "const r = arguments[0].getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};"


def box(page, element):
    return page.script(BOX, element)


def overlap(a, b):
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def viewport(page):
    return page.script("return {width: window.innerWidth, height: window.innerHeight}")


def on_screen_without_scrolling(page, placed):
    """The sheet is whole inside the window, 16 px off its edges, clear of any scrollbar
    (clientWidth and clientHeight leave a scrollbar out), and the page does not scroll."""
    room = page.script("const e = document.documentElement; return {width: e.clientWidth, height: e.clientHeight,"
                       " scrollHeight: document.scrollingElement.scrollHeight, scrollWidth: document.scrollingElement.scrollWidth}")
    size = viewport(page)
    assert (room["width"], room["height"]) == (size["width"], size["height"]), f"no scrollbar: {room}, {size}"
    assert room["scrollHeight"] <= size["height"] and room["scrollWidth"] <= size["width"], f"the page scrolls: {room}"
    assert placed["left"] >= 0 and placed["top"] >= 0, placed
    assert placed["right"] <= room["width"] and placed["bottom"] <= room["height"], (placed, room)
    return size


def test_the_country_sheet_at_1080x1920_is_centred_where_alerts_open(host, kiosk):
    """On a portrait kiosk screen a sheet opens where every alert does, in the middle of the
    screen (docs/page.md, "Kiosk screens"): anchored under its control it sat at the top edge
    of a 1,920 px screen, over the page's text, against the right edge."""
    page = kiosk
    page.open(host.base)
    page.tap("signIn")
    alert = box(page, page.dialog())
    page.button(page.dialog(), "Cancel").click()
    page.no_dialog()
    page.tap("country")
    sheet = page.dialog()
    placed = box(page, sheet)
    page.screenshot("country-sheet-portrait")
    size = on_screen_without_scrolling(page, placed)
    assert (size["width"], size["height"]) == (1080, 1920)
    assert placed["left"] >= MARGIN and placed["top"] >= MARGIN, placed
    assert placed["right"] <= size["width"] - MARGIN and placed["bottom"] <= size["height"] - MARGIN, placed
    middle = lambda b: ((b["left"] + b["right"]) / 2, (b["top"] + b["bottom"]) / 2)   # noqa: E731
    assert abs(middle(placed)[0] - middle(alert)[0]) <= 2, ("centred across as the alert", placed, alert)
    assert abs(middle(placed)[1] - size["height"] / 2) <= 2, ("centred down the screen", placed, size)
    assert abs(middle(alert)[1] - size["height"] / 2) <= 2, ("where the alert is", alert, size)
    controls = {c.get_attribute("data-control"): box(page, c) for c in page.finds("[data-control]")}
    covered = [name for name, rect in controls.items() if overlap(rect, placed)]
    assert covered == [], (covered, placed, json.dumps(controls))
    page.button(sheet, "Japan").click()
    page.wait_toast("Country: Japan")


def test_the_country_sheet_on_a_phone_rises_from_the_bottom(host, phone):
    page = phone
    page.open(host.base)
    page.tap("country")
    sheet = page.dialog()
    page.wait().until(lambda d: page.script("return arguments[0].getAnimations().length === 0", sheet))
    placed = box(page, sheet)
    page.screenshot("country-sheet-phone")
    size = on_screen_without_scrolling(page, placed)
    assert abs(placed["bottom"] - size["height"]) <= 1 and placed["left"] <= 1 and placed["right"] >= size["width"] - 1, placed
    page.button(sheet, "Japan").click()
    page.wait_toast("Country: Japan")


def test_the_country_sheet_on_a_desktop_sits_under_its_control(host, desktop):
    page = desktop
    page.open(host.base)
    page.tap("country")
    sheet = page.dialog()
    placed = box(page, sheet)
    page.screenshot("country-sheet-desktop")
    on_screen_without_scrolling(page, placed)
    control = box(page, page.control("country"))
    assert control["bottom"] <= placed["top"] <= control["bottom"] + 40, (control, placed)
    page.button(sheet, "Japan").click()
    page.wait_toast("Country: Japan")


def status_toast(page, text):
    # No seq: the host's own seqs must not be taken for ones already processed.
    page.script("window.remoteModal.receive(JSON.stringify({type: 'status', level: 'info', text: arguments[0]}))", text)
    page.wait_toast(text)


def toasts_and_status(page):
    return [box(page, toast) for toast in page.finds("#toasts .toast")], box(page, page.find("#connection"))


def assert_status_readable(page):
    toasts, status = toasts_and_status(page)
    assert toasts
    assert not [toast for toast in toasts if overlap(toast, status)], (toasts, status)
    return toasts


def test_a_toast_on_a_phone_leaves_the_connection_status_readable(host, phone):
    page = phone
    page.open(host.base)
    status_toast(page, "A notice with nothing open")
    assert_status_readable(page)
    # Over an open sheet (it rises from the bottom) the notices go up: not over the status.
    page.tap("country")
    sheet = page.dialog()
    status_toast(page, "A notice over the country sheet")
    page.screenshot("toast-over-sheet")
    toasts = assert_status_readable(page)
    assert not [toast for toast in toasts if overlap(toast, box(page, sheet))], "nor over the sheet's buttons"
    page.button(sheet, "Japan").click()
    page.wait_toast("Country: Japan")
    # Over an alert too.
    page.tap("signIn")
    page.dialog()
    status_toast(page, "A notice over Sign in")
    page.screenshot("toast-over-alert")
    assert_status_readable(page)
