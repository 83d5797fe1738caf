"""What a run spec's text may hold, checked before anything is planned: its YAML read within bounds (PyYAML
expands aliases without limit, and its composer recurses), names and free text without control characters,
mappings with known keys, text keys only, and no key to a provider anywhere (a spec is stored with its run).
Every refusal is a `SpecError` saying where in the spec and what to do. engine/play/spec.py plans the matches of
what passes; the launch form and tournaments check their fields with the same functions.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import yaml

from engine.secrets import secret_in

MAX_SPEC_CHARS = 1_000_000  # the largest shipped study is a few KB
MAX_DEPTH = 32  # a spec nests about 8 deep (games -> lineups -> seat -> api_base)
MAX_EXPANDED = 2_000_000  # nodes and scalar characters once every alias is expanded


class SpecError(ValueError):
    """A run spec that cannot be played; the message says where and why."""



class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing nesting deeper than MAX_DEPTH while it composes (its composer recurses:
    a few thousand nested lists end in RecursionError)."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.depth >= MAX_DEPTH:
            line = self.peek_event().start_mark.line + 1
            raise SpecError(f"line {line}: nested more than {MAX_DEPTH} deep; a run spec nests about 8 deep")
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def load_yaml(text: str) -> Any:
    """The YAML document of `text`, refused (SpecError) before it is built if its anchors expand it past
    MAX_EXPANDED or MAX_DEPTH: an alias is one node in the text, but a copy everywhere after (in the run's
    hash, in the database), and a merge key (`<<: *a`) copies while it is built."""
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded(node, "", 1, {})
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _expanded(node: yaml.Node, where: str, depth: int, seen: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(nodes and characters, depth) of `node` once its aliases are expanded, each shared node measured once;
    SpecError naming where past MAX_EXPANDED or MAX_DEPTH (an anchor holding itself nests without end)."""
    if id(node) not in seen:
        if depth > MAX_DEPTH:
            raise SpecError(f"{where or 'the spec'}: nested more than {MAX_DEPTH} deep once its YAML aliases are "
                            "expanded; a run spec nests about 8 deep")
        if isinstance(node, yaml.ScalarNode):
            size, height = 1 + len(node.value), 1
        else:
            if isinstance(node, yaml.MappingNode):
                children, keys = [], set()
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                        if key.value in keys:  # YAML keeps the last silently: `name: x` then `name: y` plays y
                            raise SpecError(f"line {key.start_mark.line + 1}: '{key.value}' is given twice in "
                                            f"{where or 'the spec'}; give it once")
                        keys.add(key.value)
                    path = f"{where}.{key.value}".lstrip(".") if isinstance(key, yaml.ScalarNode) else where
                    children += [(key, path), (value, path)]
            else:
                children = [(child, f"{where}[{i}]") for i, child in enumerate(node.value)]
            measured = [_expanded(child, path, depth + 1, seen) for child, path in children]
            size = 1 + sum(m[0] for m in measured)
            height = 1 + max((m[1] for m in measured), default=0)
        if size > MAX_EXPANDED:
            raise SpecError(f"{where or 'the spec'}: more than {MAX_EXPANDED:,} nodes and characters once its YAML "
                            "aliases are expanded; write it out, or use fewer anchors")
        seen[id(node)] = (size, height)
    size, height = seen[id(node)]
    if depth - 1 + height > MAX_DEPTH:
        raise SpecError(f"{where or 'the spec'}: nested more than {MAX_DEPTH} deep once its YAML aliases are "
                        "expanded; a run spec nests about 8 deep")
    return size, height


def short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def name_problem(value: Any) -> str | None:
    """Why `value` is no name to show on pages and terminals (text without control characters), or None."""
    if not isinstance(value, str) or not value.strip():
        return f"must be non-empty text, got {short(value)}"
    if (at := control_character(value)) is not None:
        return (f"{short(value)} has a control character (U+{ord(value[at]):04X}) at position {at + 1}; "
                "use printable text")
    if len(value) > 200:
        return f"at most 200 characters, got {len(value)}"
    return None


def checked_name(value: Any, where: str) -> str:
    """`value` stripped, or SpecError saying where and why it is no name (`name_problem`)."""
    if problem := name_problem(value):
        raise SpecError(f"{where}: {problem}")
    return value.strip()


def text_problem(value: Any, limit: int) -> str | None:
    """Why `value` is no free text of at most `limit` characters (it is stored with the run and may go into every
    prompt), or None: it may run over lines, but holds none of the control characters that would act on a terminal
    or a page (`control_character`)."""
    if not isinstance(value, str):
        return f"must be text, got {short(value)}"
    if len(value) > limit:
        return f"at most {limit:,} characters, got {len(value):,}"
    if (at := control_character(value, free_text=True)) is not None:
        return f"has a control character (U+{ord(value[at]):04X}) at position {at + 1}; use printable text"
    return None


# what free text may hold of the control characters: line breaks and tabs, and the joiners of emoji and scripts;
# never an escape (ANSI codes clear and colour a terminal), NUL, or a bidirectional override (it makes one name
# read as another)
_FREE_TEXT_CONTROLS = set("\n\r\t\u200c\u200d")


def control_character(text: str, free_text: bool = False) -> int | None:
    """Where `text`'s first control character is (newline, escape, NUL, a bidi override, an unassigned code
    point...), or None; `free_text` lets line breaks, tabs and joiners pass."""
    return next((i for i, c in enumerate(text) if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn")
                 and not (free_text and c in _FREE_TEXT_CONTROLS)), None)


def check_mapping(raw: Any, allowed: set[str], what: str, where: str = "") -> dict:
    """`raw` if it is a mapping whose keys are all `allowed`; else a SpecError saying so (`what` describes it)."""
    if not isinstance(raw, dict):
        raise SpecError(f"{where}{what}")
    unknown = set(raw) - allowed
    if unknown:
        raise SpecError(f"{where}unknown key(s) {sorted(unknown, key=str)}; allowed: {sorted(allowed)}")
    return raw


def check_shape(raw: Any) -> None:
    """Every mapping's keys are text (the run id hashes the spec with its keys sorted), nothing nests deeper than
    MAX_DEPTH, whether the spec came from YAML or was built in code, and no text holds a key (a spec is stored
    with its run: a key in a label, a description or an endpoint's URL would reach the database and the pages);
    a shared part is looked at once."""
    seen: set[int] = set()
    todo = [(raw, "", 1)]
    while todo:
        value, where, depth = todo.pop()
        if isinstance(value, str) and (why := secret_in(value)):
            raise SpecError(f"{where or 'the spec'}: holds {why}: keys go in the environment or .env "
                            f"(docs/RUNNING.md), never in a spec, which is stored with the run")
        if not isinstance(value, (dict, list)) or id(value) in seen:
            continue
        seen.add(id(value))
        if depth > MAX_DEPTH:
            raise SpecError(f"{where}: nested more than {MAX_DEPTH} deep; a run spec nests about 8 deep")
        if isinstance(value, list):
            todo += [(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value)]
            continue
        for key, item in value.items():
            if not isinstance(key, str):
                raise SpecError(f"{where or 'the spec'}: a key must be text, got {short(key)}")
            todo.append((item, f"{where}.{key}".lstrip("."), depth + 1))
