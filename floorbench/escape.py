"""Text from a file, made safe for where floorbench writes it: a terminal line, a Markdown cell, HTML.

A scenario id, a transcript or a run name comes from files anybody may have
written; shown raw, a newline or ``|`` breaks a line or a table, ``<script>``
runs in a browser, ``\\x1b[31m`` drives the terminal and U+202E (right-to-left
override) makes a line read otherwise than it is. Every such character —
whatever `str.isprintable` refuses: controls, format characters (bidi
overrides, zero-width), line and paragraph separators — is shown escaped
(``\\n``, ``\\x1b``, ``\\u202e``), as `floorbench.errors.one_line` does for error
lines and `suite info` for its listing.
"""

from __future__ import annotations

from html import escape
from pathlib import PurePath


def printable(text: object) -> str:
    """`text` with every non-printable character shown as its Python escape (one visible line)."""
    s = str(text).encode("utf-8", "backslashreplace").decode("utf-8")  # lone surrogates from odd file names
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in s)


def md_cell(text: object) -> str:
    """Text safe inside a Markdown table cell or heading: no raw HTML, no column or line break, no control."""
    t = printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(t.replace("|", "\\|").split())


def html_text(text: object) -> str:
    """Text safe inside HTML, an attribute value included."""
    return escape(printable(text), quote=True)


def md_table(title: str, headers: list[str], rows: list[list[str]]) -> str:
    """A ``### title`` and a Markdown table, every heading, header and cell through `md_cell`."""
    lines = [f"### {md_cell(title)}", "", "| " + " | ".join(md_cell(h) for h in headers) + " |",
             "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(md_cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def excerpt(value: object, limit: int = 60) -> str:
    """A value from a file quoted in an error line: printable (`printable`), cut to about `limit`
    characters, so a huge or hostile value never floods or drives the terminal."""
    text = value if isinstance(value, str) else str(value) if isinstance(value, PurePath) else _short_repr(value, limit)
    shown = printable(text[: limit + 1])
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _short_repr(value: object, limit: int) -> str:
    """repr of a scalar; of a list or mapping only its type and size (never the whole, perhaps shared, tree)."""
    if isinstance(value, dict):
        return f"a mapping of {len(value)} keys"
    if isinstance(value, list | tuple | set):
        return f"a list of {len(value)} items"
    return repr(value)[: limit + 1]
