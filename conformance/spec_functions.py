"""Write the list of the standard's functions, with their spec pages, for the docs' coverage table.

The list comes from the spec repository the conformance suite pins (``array-api/`` in the suite's
folder, see ``run.py``): every entry of the function tables (``autosummary``) of the 2025.12
specification's pages, namespace functions, the ``linalg`` and ``fft`` extensions and the inspection
functions. Constants, data types and the array object's attributes are not functions and are left out.

Usage::

    ARRAY_API_TESTS_DIR=/path/to/array-api-tests python conformance/spec_functions.py

writes ``docs/results/array-api-2025.12.json``, which the docs' build reads (the spec itself is never
copied into this repository).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run

VERSION = "2025.12"
OUTPUT = HERE.parent / "docs" / "results" / f"array-api-{VERSION}.json"
SPEC_SITE = f"https://data-apis.org/array-api/{VERSION}"
# the pages whose tables list functions (folder of the spec's sources, file)
FUNCTION_PAGES = [
    ("API_specification", name) for name in (
        "creation_functions", "data_type_functions", "elementwise_functions", "indexing_functions",
        "linear_algebra_functions", "manipulation_functions", "searching_functions", "set_functions",
        "sorting_functions", "statistical_functions", "utility_functions", "inspection")
] + [("extensions", "linear_algebra_functions"), ("extensions", "fourier_transform_functions")]

_DIRECTIVE = re.compile(r"^\.\. (currentmodule|autosummary)::\s*(\S*)")


def functions_of(page: Path, folder: str) -> list[dict[str, Any]]:
    """The entries of every autosummary table of one spec page, with their module and URL."""
    lines = page.read_text().splitlines()
    title = next(lines[i - 1].strip() for i, line in enumerate(lines) if i and set(line) == {"="})
    module, found, in_table = "array_api", [], False
    for line in lines:
        directive = _DIRECTIVE.match(line)
        if directive:
            if directive.group(1) == "currentmodule":
                module = directive.group(2)
            in_table = directive.group(1) == "autosummary"
            continue
        if not in_table:
            continue
        entry = line.strip()
        if not entry or entry.startswith(":"):
            continue
        if not line.startswith("   "):
            in_table = False
            continue
        extension = module.removeprefix("array_api").lstrip(".")
        # the info functions are methods of what __array_namespace_info__() returns
        name = (f"{extension}.{entry}" if extension in ("linalg", "fft") else
                f"__array_namespace_info__().{entry}" if extension == "info" and entry != "__array_namespace_info__"
                else entry)
        found.append({"name": name, "category": title, "extension": extension if extension in ("linalg", "fft") else None,
                      "url": f"{SPEC_SITE}/{folder}/generated/{module}.{entry}.html"})
    return found


def main() -> int:
    spec = run.suite_location() / "array-api" / "spec" / VERSION
    functions = [f for folder, name in FUNCTION_PAGES for f in functions_of(spec / folder / f"{name}.rst", folder)]
    OUTPUT.write_text(json.dumps({"version": VERSION, "spec_commit": run.SPEC_COMMIT, "spec_site": SPEC_SITE,
                                  "functions": functions}, indent=1) + "\n")
    print(f"{len(functions)} functions written to {OUTPUT.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
