"""The report's HTML: the data as JSON in the page, every script and style inlined, so the one file
works offline (no request leaves it). Jinja2 fills ``templates/report.html.j2``; the plots are
uPlot's (``assets/vendor``, MIT), 50 kB, drawn in a canvas."""

from __future__ import annotations

import base64
import gzip
import json
import os
import tempfile
from pathlib import Path

ASSETS = Path(__file__).parent / "assets"
TEMPLATES = Path(__file__).parent / "templates"


class ReportError(Exception):
    """The report cannot be written; the message is one line for the user."""


def _jinja():
    try:
        import jinja2
    except ImportError:
        raise ReportError(
            "the HTML report needs Jinja2: pip install 'arena[report]' (or pip install jinja2)"
        ) from None
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
    )


def _script_json(data: dict) -> str:
    """JSON safe inside <script>: no ``</script>`` or ``<!--`` can end it early."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _packed(value) -> str:
    """The replays, gzipped and in base64: their frames repeat themselves (hands, captions), and
    compressed they take a tenth of the room; the page inflates them with the browser's own
    ``DecompressionStream``."""
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def render_html(data: dict) -> str:
    template = _jinja().get_template("report.html.j2")  # first: a missing Jinja2 is one line
    from markupsafe import Markup  # (Jinja2's own dependency)

    def asset(name: str) -> Markup:
        return Markup((ASSETS / name).read_text(encoding="utf-8"))

    page = {k: v for k, v in data.items() if k != "replays"}
    return template.render(
        data=data,
        data_json=Markup(_script_json(page)),
        replays=_packed(data["replays"]),
        asset=asset,
    )


def write_report(html: str, path: Path) -> None:
    """Write atomically: a reader (a browser reloading it during a run) never sees half a file."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".html", dir=path.parent or ".")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(html)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        raise ReportError(f"{path}: cannot write the report: {exc.strerror or exc}") from None
