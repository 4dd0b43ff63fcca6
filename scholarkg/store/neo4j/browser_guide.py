"""The scholarkg guide and style sheet Neo4j Browser opens on the managed server.

``db start --browser`` serves Neo4j Browser; on connecting it runs the server's
``browser.post_connect_cmd``, which :mod:`scholarkg.store.neo4j.server` sets to ``:play`` this
module's guide (fetched from the launcher on 127.0.0.1, the only host the Browser may fetch
from). The guide lists the saved queries of ``queries/browser/`` as runnable snippets: a click
puts a parameter or the query into the editor.

Parameters are set one ``:param name => value`` each, never ``:params {…}``: the Browser
reads a ``:params`` map as JSON, so ``{limit: 25}`` became the float ``25.0`` and ``LIMIT``
refused it; ``:param`` evaluates its value as Cypher, so ``25`` stays an integer. An id
parameter is filled from the graph the Browser opens on: the query file's ``:example``
expression (e.g. the most cited loaded work) runs when the block is run, so the guide never
names a node (``'p1'``) the user's graph does not hold.

The style sheet (captions by title, text or name; colours per label) is not applied on
connect: the Browser prints every ``:style`` command as a frame holding the whole sheet, and
the guide then opened under it. Its default captions already show a Paper's title and an
Author's or Venue's name; the welcome slide offers the style as one click.

Written at every start (a new saved query shows up after a restart). Guides are HTML in the
Browser's slide format (``<slide>`` elements in a ``<carousel>``); the Browser strips
scripts and event handlers from a remote guide, so this is markup only, and every text is
escaped here.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from scholarkg.queries.saved import SavedQuery, browser_query_files
from scholarkg.textio import atomic_write_text

#: node captions: the property a reader knows a node by (labels without one keep ``id``)
CAPTIONS: dict[str, str] = {
    "Paper": "title",
    "Query": "text",
    "Aspect": "text",
    "Author": "name",
    "Venue": "name",
    "Task": "name",
    "Dataset": "name",
    "Metric": "name",
    "Method": "name",
}
#: node colours of the style sheet (the rest keep the Browser's grey)
COLOURS: dict[str, str] = {
    "Paper": "#68BDF6",
    "Query": "#F79767",
    "Aspect": "#FFD86E",
    "Author": "#6DCE9E",
    "Venue": "#DE9BF9",
}


def cypher_value(value: Any) -> str:
    """A parameter value as a Cypher literal for ``:params`` (strings single-quoted)."""
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, list):
        return "[" + ", ".join(cypher_value(v) for v in value) + "]"
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    raise TypeError(f"no Cypher literal for {type(value).__name__}")


def query_body(query: SavedQuery) -> str:
    """The query without its ``//`` header (title, purpose and parameters are shown above)."""
    lines = query.text.splitlines()
    while lines and lines[0].lstrip().startswith("//"):
        lines.pop(0)
    return "\n".join(lines).strip()


def param_command(name: str, query: SavedQuery) -> str:
    """``:param name => value``: the query's ``:example`` expression where it has one (a real
    id from the graph), else its literal example (an integer stays an integer)."""
    value = query.examples.get(name)
    if value is None:
        value = cypher_value(query.params[name])
    return f":param {name} => {value}"


def guide_html(queries: tuple[SavedQuery, ...], *, style_url: str | None = None) -> str:
    """The guide: a welcome slide with the index, then one slide per saved query."""
    esc = html.escape
    index = "".join(f"<li><b>{esc(q.title)}</b> <code>{esc(q.name)}</code></li>" for q in queries)
    style = (
        "<p>Colours per label and captions for queries and aspects (by their text): click, "
        "then run; the Browser shows the sheet it applied in a frame you can close.</p>"
        f'<pre class="pre-scrollable code runnable">:style {esc(style_url)}</pre>'
        if style_url
        else ""
    )
    slides = [
        '<slide class="row-fluid"><div class="col-sm-12">'
        "<h3>scholarkg: the scholarly record as a graph</h3>"
        '<p class="lead">Papers, authors, citations, leaderboards, queries and reviews, '
        "loaded by <code>scholarkg load</code>. The next slides are the saved queries of "
        "<code>scholarkg/queries/browser/</code>: click a block to put it in the editor, "
        "then run it. Run a slide's <code>:param</code> blocks first: an id is picked from "
        "your graph (e.g. its most cited loaded work); put any id of yours in its place.</p>"
        f"<ol>{index}</ol>"
        "<p>Reference stubs (works your records cite but no record of yours describes) carry "
        "the label <code>Stub</code>. From the command line: <code>scholarkg suggest "
        "TEXT</code> (works to cite) and <code>scholarkg related WORK</code>.</p>"
        f"{style}"
        "</div></slide>"
    ]
    for q in queries:
        params = "".join(
            f'<pre class="pre-scrollable code runnable">{esc(param_command(k, q))}</pre>'
            for k in q.params
        )
        slides.append(
            '<slide class="row-fluid">'
            f'<div class="col-sm-3"><h3>{esc(q.title)}</h3>'
            f'<p class="lead">{esc(q.why)}</p><p><code>{esc(q.name)}.cypher</code></p></div>'
            f'<div class="col-sm-9">{params}'
            f'<pre class="pre-scrollable code runnable">{esc(query_body(q))}</pre></div>'
            "</slide>"
        )
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>scholarkg</title></head>'
        '<body><article class="guide"><carousel class="deck container-fluid">\n'
        + "\n".join(slides)
        + "\n</carousel></article></body></html>\n"
    )


def grass() -> str:
    """The Browser style sheet (GRASS): captions and colours per label."""
    rules = [
        "node {\n  diameter: 50px;\n  color: #A5ABB6;\n  border-color: #9AA1AC;\n"
        "  border-width: 2px;\n  text-color-internal: #FFFFFF;\n  font-size: 10px;\n"
        '  caption: "{id}";\n}',
        "relationship {\n  color: #A5ABB6;\n  shaft-width: 1px;\n  font-size: 8px;\n"
        "  padding: 3px;\n  text-color-external: #000000;\n  text-color-internal: #FFFFFF;\n"
        '  caption: "<type>";\n}',
    ]
    for label, prop in CAPTIONS.items():
        colour = COLOURS.get(label)
        colours = (
            f"  color: {colour};\n  border-color: {colour};\n  text-color-internal: #2A2C34;\n"
            if colour
            else ""
        )
        rules.append(f'node.{label} {{\n{colours}  caption: "{{{prop}}}";\n}}')
    return "\n".join(rules) + "\n"


def write_guide(directory: Path, *, page: str, style: str, style_url: str | None = None) -> None:
    """Write the guide (``page``) and the style sheet (``style``) into ``directory``;
    ``style_url``: where the Browser fetches the sheet (the welcome slide's ``:style``)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    guide = guide_html(browser_query_files(), style_url=style_url)
    atomic_write_text(directory / page, guide, fsync=False)
    atomic_write_text(directory / style, grass(), fsync=False)
