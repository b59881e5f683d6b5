"""Validates documents against ask_user's JSON Schemas with the `jsonschema`
package (Draft 2020-12), independently of the Rust code.

Usage: validate.py SCHEMA_DIR MANIFEST
MANIFEST has one case per line: `SCHEMA<TAB>EXPECT<TAB>PATH`, where SCHEMA is
input, prompt, answer or error and EXPECT is valid or invalid. Prints one line
per case whose verdict differs from EXPECT and exits 1 if there is any.

A tool input is decoded as ask_user decodes it before its schema applies
(DESIGN §2): a UTF-8 BOM and surrounding white space are ignored, and a JSON
string holding a JSON object is unwrapped once.
"""

import json
import sys
from pathlib import Path

from jsonschema import Draft202012Validator


def load_validators(schema_dir):
    validators = {}
    for name in ("input", "prompt", "answer", "error"):
        schema = json.loads((schema_dir / f"{name}.json").read_text(encoding="utf-8"))
        if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            sys.exit(f"{name}.json does not declare JSON Schema 2020-12")
        Draft202012Validator.check_schema(schema)
        validators[name] = Draft202012Validator(schema)
    return validators


def load_document(path, schema):
    text = path.read_bytes().decode("utf-8-sig").strip()
    value = json.loads(text)
    if schema == "input" and isinstance(value, str):
        try:
            inner = json.loads(value.strip())
        except ValueError:
            inner = None
        if isinstance(inner, dict):
            value = inner
    return value


def main():
    schema_dir, manifest = Path(sys.argv[1]), Path(sys.argv[2])
    validators = load_validators(schema_dir)
    cases = mismatches = 0
    for line in manifest.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        schema, expect, path = line.split("\t", 2)
        cases += 1
        document = load_document(Path(path), schema)
        errors = sorted(validators[schema].iter_errors(document), key=lambda e: list(e.path))
        verdict = "invalid" if errors else "valid"
        if verdict != expect:
            mismatches += 1
            why = "; ".join(
                f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:200]}"
                for e in errors[:3]
            )
            print(f"MISMATCH {schema} schema: {path} is {verdict}, expected {expect}. {why}")
    print(f"schema validation: {cases} documents, {mismatches} mismatches")
    sys.exit(1 if mismatches or not cases else 0)


if __name__ == "__main__":
    main()
