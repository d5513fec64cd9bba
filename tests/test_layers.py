"""The imports keep the layers of docs/architecture.md: no circle anywhere, and each
layer imports only what lies below it.

Why a test: an import that points up or closes a circle works until the day the
modules are loaded in another order (a worker, a management command), and each
one makes the next easier to add. The graph is grimp's: every ``import`` and
``from ... import`` in ``games/``, ``bot/`` and ``gin3site/``, at the top of a
module or inside a function alike (an import moved into a function still makes
the circle).
"""

from __future__ import annotations

import sys
from functools import cache

import grimp
import pytest

PACKAGES = ("games", "bot", "gin3site")


@cache
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, include_external_packages=True, cache_dir=None)


def ours(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


def circles(nodes: set[str], imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm,
    iterative so that a long chain does not reach the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(imports[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(imports[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def module_circles(modules: set[str]) -> list[list[str]]:
    imports = {module: graph().find_modules_directly_imported_by(module) & modules for module in modules}
    return circles(modules, imports)


def sibling_circles(parent: str) -> list[list[str]]:
    """Circles between the children of ``parent``, each child package taken whole
    (``bot.backends`` imports ``bot.terminal`` if any module of one imports any of the other)."""
    children = graph().find_children(parent)
    members = {child: {child} | graph().find_descendants(child) for child in children}
    imports = {}
    for child, its_modules in members.items():
        imported = set().union(*(graph().find_modules_directly_imported_by(module) for module in its_modules))
        imports[child] = {other for other in children if other != child and imported & members[other]}
    return circles(set(children), imports)


def imported_by(package: str) -> set[str]:
    """Every module that a module of ``package`` imports, outside ``package``."""
    inside = {package} | graph().find_descendants(package)
    imported = set().union(*(graph().find_modules_directly_imported_by(module) for module in inside))
    return imported - inside


def test_no_module_imports_itself_through_others():
    modules = {module for module in graph().modules if ours(module)}
    assert module_circles(modules) == []


@pytest.mark.parametrize("parent", PACKAGES)
def test_no_package_imports_a_sibling_that_imports_it(parent):
    """Between sibling packages too (``games.admin`` and ``games.services``, ``bot.telegram``
    and ``bot.terminal``), at every depth: a circle between packages is one between layers."""
    parents = [parent, *sorted(graph().find_descendants(parent))]
    found = {name: sibling_circles(name) for name in parents if graph().find_children(name)}
    assert {name: circle for name, circle in found.items() if circle} == {}


def test_the_engine_imports_only_the_standard_library():
    """No Django, no I/O libraries, nothing of gin3 above it: the rules are pure functions."""
    foreign = {module for module in imported_by("games.engine") if module.split(".")[0] not in sys.stdlib_module_names}
    assert foreign == set()


def test_the_contract_imports_only_the_engine_and_the_standard_library():
    allowed = {"games.engine"} | graph().find_descendants("games.engine")
    foreign = {
        module
        for module in imported_by("games.contract")
        if module not in allowed and module.split(".")[0] not in sys.stdlib_module_names
    }
    assert foreign == set()


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("games.text", "games.services"),
        ("games.text", "games.models"),
        ("games.engine", "games.contract"),
        ("games.contract", "games.text"),
        ("games", "bot"),
        ("games.services", "games.tasks"),
        ("games.services", "games.site.views"),
        ("games.services", "games.admin"),
        ("games.services.plumbing", "games.services.write"),
        ("games.services.plumbing", "games.services.read"),
        ("games.services.plumbing", "games.services.commands"),
        ("games.services.read", "games.services.write"),
        ("games.services.read", "games.services.commands"),
        ("games.services.write", "games.services.commands"),
        # What anyone may see is never built from what one seat may see (his cards).
        ("games.services.read.public", "games.services.read.tables"),
        ("games.site", "games.services.read.tables"),
        # A move never calls what plays by itself: a computer's move, a timeout and the
        # clock scan come after the move's commit, each in a change of its own.
        ("games.services.write.play", "games.services.write.computer_moves"),
        ("games.services.write.play", "games.services.write.deadlines"),
        ("games.services.write.play", "games.services.write.clock_scan"),
    ],
)
def test_a_layer_never_reaches_one_above_it(importer, imported):
    """Not even through a module in between: a chain up is as much a dependency as an import."""
    assert graph().find_shortest_chains(importer, imported, as_packages=True) == set()


def test_the_checks_see_a_circle_and_an_import_up():
    """The checks themselves: a circle made of three modules, and an import up, are found."""
    imports = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(set(imports), imports) == [["a", "b", "c"]]
    assert "games.models" in imported_by("games.services")


@pytest.mark.parametrize(
    "plumbing", ["games.services.plumbing.change", "games.services.plumbing.outbox", "games.services.plumbing.state"]
)
def test_no_channel_opens_a_change_or_touches_the_outbox(plumbing):
    """The channels go through the one way in (``handle`` and the service functions):
    a channel that opened a change itself would skip what they check and log."""
    channels = {"bot"} | graph().find_descendants("bot")
    assert {module for module in channels if plumbing in graph().find_modules_directly_imported_by(module)} == set()
