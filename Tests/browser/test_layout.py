"""Issue #32 (cold trial), where things sit on screen: at 1080x1920 the country sheet keeps
16 px off the screen's edges and covers no control, anchored under its own (test_gallery's
kiosk test) or centred as alerts are (it sat against the screen's right edge); on a phone a toast leaves the header's connection status readable (a toast over
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


def test_the_country_sheet_at_1080x1920_keeps_off_the_edges_and_covers_no_control(host, kiosk):
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
    size = viewport(page)
    assert (size["width"], size["height"]) == (1080, 1920)
    assert placed["left"] >= MARGIN and placed["top"] >= MARGIN, placed
    assert placed["right"] <= size["width"] - MARGIN and placed["bottom"] <= size["height"] - MARGIN, placed
    # Anchored under its control (test_gallery's kiosk test), or centred as alerts are.
    middle = lambda b: ((b["left"] + b["right"]) / 2, (b["top"] + b["bottom"]) / 2)   # noqa: E731
    centred = abs(middle(placed)[0] - middle(alert)[0]) <= 2 and abs(middle(placed)[1] - size["height"] / 2) <= 2
    anchored = box(page, page.control("country"))["bottom"] <= placed["top"]
    assert centred or anchored, (placed, alert)
    controls = {c.get_attribute("data-control"): box(page, c) for c in page.finds("[data-control]")}
    covered = [name for name, rect in controls.items() if overlap(rect, placed)]
    assert covered == [], (covered, placed, json.dumps(controls))
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
