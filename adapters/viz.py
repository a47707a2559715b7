"""The HTML export: a Neighbourhood drawn with neo4j-viz (the `viz` extra), coloured and
captioned by cypher/browser/style.grass exactly as Neo4j Browser draws it.

neo4j-viz renders one self-contained page: its JavaScript and CSS are inlined and the graph
travels as an inert JSON block, so the file opens anywhere, without a server or a network.
"""
from __future__ import annotations

import html
import re

from adapters.neo4j_browser import caption, node_style, relationship_style, style_rules
from engine.errors import InvalidInput
from engine.reading.viz import Neighbourhood

LEGEND = (("IN", ("Belief", "In")), ("OUT", ("Belief", "Out")),
          ("UNDETERMINED", ("Belief", "Out", "Undetermined")), ("missing id", ("Missing",)),
          ("justification", ("Justification",)))


def _px(value: str, default: float) -> float:
    m = re.match(r"^\s*([0-9.]+)\s*(px)?\s*$", value or "")
    return float(m.group(1)) if m else default


def render_html(nb: Neighbourhood, *, title: str | None = None) -> str:
    try:
        from neo4j_viz import Node, Relationship, VisualizationGraph
    except ImportError as e:
        raise InvalidInput("the HTML export needs neo4j-viz: pip install -e '.[viz]'",
                           field="viz") from e
    rules = style_rules()
    nodes = []
    for n in sorted(nb.nodes.values(), key=lambda n: n.key):
        style = node_style(n.labels, rules)
        props = {"labels": ":".join(n.labels), **{k: _shown(v) for k, v in n.properties.items()}}
        nodes.append(Node(
            id=n.key,
            caption=caption(style.get("caption", "{id}"), n.properties, n.labels[0]),
            color=style.get("color", "#A5ABB6"),
            size=_px(style.get("diameter", "50px"), 50.0) / 2,
            properties=props,
        ))
    relationships = []
    for edge in sorted(nb.edges.values(), key=lambda edge: edge.key):
        style = relationship_style(edge.type, rules)
        relationships.append(Relationship(
            id=edge.key, source=edge.source, target=edge.target,
            caption=caption(style.get("caption", "<type>"), edge.properties, edge.type),
            color=style.get("color", "#A5ABB6"),
            width=_px(style.get("shaft-width", "1px"), 1.0),
            properties={"type": edge.type,
                        **{k: _shown(v) for k, v in edge.properties.items()}},
        ))
    graph = VisualizationGraph(nodes=nodes, relationships=relationships)
    graph.set_legend(nodes={name: node_style(labels, rules).get("color", "#A5ABB6")
                            for name, labels in LEGEND})
    page = graph.render(height="100vh", theme="light", on_dangling="error").data
    heading = title or f"{nb.root}: support and dependents within {nb.steps} steps"
    return page.replace("<title>neo4j-viz</title>", f"<title>{html.escape(heading)}</title>", 1)


def _shown(value: object) -> object:
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)
