"""The protocol's JSON Schema (protocol/remote-modal.v1.schema.json), for checking messages."""
import json
import os

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_PATH = os.path.join(ROOT, "protocol", "remote-modal.v1.schema.json")

with open(SCHEMA_PATH, encoding="utf-8") as handle:
    SCHEMA = json.load(handle)
jsonschema.Draft202012Validator.check_schema(SCHEMA)


def _validator(definition):
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": SCHEMA["$defs"]})


HOST = _validator("hostMessage")
CLIENT = _validator("clientMessage")
VALUES = {kind: _validator(f"value.{kind}") for kind in ("action", "url", "mail", "message", "items")}


def problems(validator, message):
    """Every way `message` fails the schema, as text (empty: it validates)."""
    return [f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
            for error in validator.iter_errors(message)]


def check_host_message(message):
    """Raises AssertionError naming what is wrong with a message a host sent."""
    found = problems(HOST, message)
    assert not found, f"host message does not fit the schema: {found}: {message}"
