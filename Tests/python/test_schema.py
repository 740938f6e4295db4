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
