"""Text from the API is data: it is drawn as the characters it holds, never as markup or escapes.

Every string that came over the network passes through `clean()` (control characters out, length
bounded) and is wrapped in `rich.text.Text` (which never parses markup) before it reaches a widget.
"""

from __future__ import annotations

import unicodedata

from rich.text import Text

# Bidi embedding/override/isolate controls reorder the text around them on terminals that honour
# them,
# so a name could disguise itself or the price beside it. Arabic/Hebrew letters themselves stay.
_BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)

# Long enough for any honest name; a 10,000-character name is cut, not wrapped over the screen.
DEFAULT_LIMIT = 200


def clean(value: object, limit: int | None = DEFAULT_LIMIT, *, one_line: bool = True) -> str:
    """A display-safe string: no control characters (ESC, BEL, C1...), no bidi overrides, bounded.

    Newlines and tabs become spaces when `one_line`; otherwise newlines are kept (descriptions).
    """
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if limit is not None and len(text) > limit * 4:
        # Cut early so a huge string costs nothing below; the exact cut happens after cleaning.
        text = text[: limit * 4]
    out: list[str] = []
    for ch in text:
        if ch == "\n" and not one_line:
            out.append(ch)
        elif ch in "\t\n\r":
            out.append(" ")
        elif ch in _BIDI_CONTROLS:
            continue
        else:
            cat = unicodedata.category(ch)
            if cat == "Cc" or cat == "Cs":
                # Control characters (ESC of an ANSI sequence, BEL, C1) and lone surrogates are
                # dropped;
                # what follows an ESC stays visible as plain characters, as data should.
                continue
            out.append(ch)
    result = "".join(out)
    if one_line:
        result = " ".join(result.split())
    else:
        result = "\n".join(" ".join(line.split()) for line in result.split("\n")).strip("\n")
    if limit is not None and len(result) > limit:
        result = result[: limit - 1].rstrip() + "…"
    return result


def literal(value: object, style: str = "", limit: int | None = DEFAULT_LIMIT) -> Text:
    """API text as a rich Text drawn literally (Text never parses markup)."""
    return Text(clean(value, limit), style=style, no_wrap=False, end="")
