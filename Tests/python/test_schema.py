"""Every golden fixture validates against the protocol's JSON Schema, and the schema is not
a rubber stamp: broken messages fail it."""
import copy
import glob
import json
import os

import pytest

from schema import CLIENT, HOST, ROOT, VALUES, problems

FIXTURES = sorted(glob.glob(os.path.join(ROOT, "Tests", "Fixtures", "protocol", "*.json")))
VALUE_OF = {"alert": "action", "mailComposer": "mail", "messageComposer": "message", "photoPicker": "items"}


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def test_there_are_fixtures_of_both_sides():
    names = [os.path.basename(path) for path in FIXTURES]
    assert sum(name.startswith("host.") for name in names) >= 20
    assert sum(name.startswith("client.") for name in names) >= 9


@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_each_fixture_validates(path):
    message = load(path)
    side = HOST if os.path.basename(path).startswith("host.") else CLIENT
    assert problems(side, message) == []
    if message["type"] == "result":
        kind = os.path.basename(path).split(".")[2]
        assert problems(VALUES[VALUE_OF[kind]], message["value"]) == []


@pytest.mark.parametrize("name, change", [
    ("host.dismiss.json", lambda m: m.pop("seq")),
    ("host.present.alert.json", lambda m: m["modal"].pop("actions")),
    ("host.present.alert.json", lambda m: m["modal"]["textFields"][0].update(kind=3)),
    ("host.present.photoPicker.json", lambda m: m["modal"].update(maxBytes="big")),
    ("host.uploadAck.json", lambda m: m.update(received=-1)),
    ("host.welcome.json", lambda m: m.update(protocol=2)),
    ("host.error.upload.json", lambda m: m.update(held="65536")),
    ("host.resumed.json", lambda m: m.update(seq=0)),
    ("client.upload.json", lambda m: m.update(data="not base64!")),
    ("client.hello.json", lambda m: m.pop("client")),
    ("client.failure.json", lambda m: m.update(code="later")),
])
def test_a_broken_message_fails(name, change):
    message = load(os.path.join(ROOT, "Tests", "Fixtures", "protocol", name))
    broken = copy.deepcopy(message)
    change(broken)
    side = HOST if name.startswith("host.") else CLIENT
    assert problems(side, message) == []
    assert problems(side, broken) != []


def test_unknown_fields_validate():
    message = load(os.path.join(ROOT, "Tests", "Fixtures", "protocol", "host.status.json"))
    message["future"] = {"anything": [1, 2]}
    assert problems(HOST, message) == []


# What the conformance host's unknown-values scenario sends: values and a type of a later version.
FUTURE = [
    {"type": "forecast", "seq": 3, "text": "a message type of a future version", "priority": 3},
    {"type": "status", "seq": 4, "level": "celebration", "text": "A status level of a future version"},
    {"type": "error", "seq": 5, "code": "quota_exceeded", "message": "m", "ref": "event", "retryAfter": 30},
    {"type": "dismiss", "seq": 6, "id": "m1", "reason": "withdrawn"},
    {"type": "present", "seq": 7, "id": "m2", "modal": {
        "kind": "alert", "title": "From the future", "message": "m",
        "textFields": [{"kind": "colour", "placeholder": "a colour", "text": None}],
        "actions": [{"title": "Continue", "style": "emphatic", "enabled": True, "preferred": True}]}},
]


def test_growable_values_of_a_later_version_validate_and_closed_ones_stay_closed():
    for message in FUTURE:
        assert problems(HOST, message) == [], message
    # Not a rubber stamp: a known type is still judged by its own definition, and the values
    # that are not growable (a client's answers) stay closed.
    assert problems(HOST, {"type": "dismiss", "seq": 3}) != []
    assert problems(HOST, {"type": "status", "seq": 4, "level": 3, "text": "x"}) != []
    assert problems(VALUES["mail"], {"status": "later"}) != []
    assert problems(CLIENT, {"type": "failure", "id": "m1", "code": "later"}) != []


def test_an_upload_error_names_the_chunk():
    message = {"type": "error", "seq": 9, "code": "rate_limited", "message": "m", "ref": "upload", "id": "m1",
               "file": 0, "offset": 32768, "held": 32768}
    assert problems(HOST, message) == []
    assert problems(HOST, {**message, "offset": "32768"}) != []
