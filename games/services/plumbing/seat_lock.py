"""The query that locks matches and reads their seats, compiled once for each shape.

Every command and every computer move begins with it (``state.lock_seats``).
Django builds and compiles a queryset each time it runs, and this one joins
four tables and counts in a subquery what reached each player: that took
2.2 ms of the 6.8 ms a move took through ``handle`` on SQLite. Its SQL depends
only on the database and on the shape of the query that picks the matches, so
it is compiled once for each of those, and a call sends that SQL with the
picking query's own parameters. Rows become models as Django's own iteration
makes them: each column through the converters its field asks for, each model
with ``from_db``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import connections, router
from django.db.models import Model, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Concat

from games.models import Hand as HandRow
from games.models import Match, Outbox, Player, Seat
from games.services.plumbing.delivery import TABLE_KEY

# The models a row holds, the seat's first. Django selects each one's columns in the
# order of its concrete fields, which ``from_db`` takes.
_MODELS: tuple[type[Model], ...] = (Seat, Match, HandRow, Player)
_FIELDS = {model: [field.attname for field in model._meta.concrete_fields] for model in _MODELS}

M = TypeVar("M", bound=Model)
Converter = Callable[[Any, Any, Any], Any]


@dataclass(frozen=True)
class _Compiled:
    sql: str
    fixed: tuple[Any, ...]  # the parameters before the picking query's, which end the list
    converters: tuple[tuple[int, tuple[Converter, ...], Any], ...]  # (column, its converters, its expression)
    starts: dict[type[Model], int]  # where each model's columns begin in a row
    seen_events: int  # the annotation's column


def seats(matches: QuerySet) -> list[Seat]:
    """The seats of the matches ``matches`` (a ``match_id`` values queryset) selects,
    the matches locked, in the order of match id and position; each seat with its
    match (and the match's current hand) and its player, and ``seen_events``: how long
    the match's log was when the newest table of it that reached the player was
    written (None if none has)."""
    alias = router.db_for_write(Seat)
    connection = connections[alias]
    picking_sql, picking_params = matches.query.get_compiler(using=alias).as_sql()
    shape = (alias, connection.vendor, picking_sql)
    compiled = _compiled.get(shape) or _compiled.setdefault(shape, _compile(alias, matches, picking_params))
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, (*compiled.fixed, *picking_params))
        rows = cursor.fetchall()
    return [_seat_of(alias, _converted(row, compiled, connection), compiled) for row in rows]


def _converted(row: tuple[Any, ...], compiled: _Compiled, connection: Any) -> list[Any]:
    values = list(row)
    for column, converters, expression in compiled.converters:
        for convert in converters:
            values[column] = convert(values[column], expression, connection)
    return values


def _seat_of(alias: str, values: list[Any], compiled: _Compiled) -> Seat:
    seat = _part(Seat, alias, values, compiled)
    match = _part(Match, alias, values, compiled)
    player = _part(Player, alias, values, compiled)
    assert seat is not None and match is not None and player is not None  # inner joins
    match.current_hand = _part(HandRow, alias, values, compiled)
    seat.match, seat.player = match, player
    seat.seen_events = values[compiled.seen_events]  # type: ignore[attr-defined]  # as .annotate() would
    return seat


def _part(model: type[M], alias: str, values: list[Any], compiled: _Compiled) -> M | None:
    """The ``model`` of a row (None where the outer join left it empty)."""
    names = _FIELDS[model]
    start = compiled.starts[model]
    return None if values[start] is None else model.from_db(alias, names, values[start : start + len(names)])


# By (database alias, its vendor, the picking query's SQL): a handful, one for each
# way the code picks matches.
_compiled: dict[tuple[str, str, str], _Compiled] = {}


def _compile(alias: str, matches: QuerySet, picking_params: tuple[Any, ...]) -> _Compiled:
    """The seat lock around the first picking query of a shape, whose parameters end
    the list; where the compiler put each model's columns, checked to be each model's
    concrete fields in order."""
    query = (
        Seat.objects.using(alias)
        .select_for_update(of=("match",))
        .select_related("match__current_hand", "player")
        .filter(match_id__in=matches)
        .annotate(seen_events=_last_table_seen())
        .order_by("match_id", "position")
    )
    compiler = query.query.get_compiler(using=alias)
    sql, params = compiler.as_sql()
    fixed = params[: len(params) - len(picking_params)]
    if (*fixed, *picking_params) != tuple(params):
        raise AssertionError(f"the picking query's parameters do not end the seat lock's: {params}")
    select = [expression for expression, _sql, _alias in compiler.select]
    names = [getattr(getattr(expression, "target", None), "attname", None) for expression in select]
    tables = [getattr(getattr(expression, "target", None), "model", None) for expression in select]
    starts = {model: tables.index(model) for model in _MODELS}
    for model, start in starts.items():
        if names[start : start + len(_FIELDS[model])] != _FIELDS[model]:
            raise AssertionError(f"the seat lock does not select {model.__name__}'s fields in their order")
    converters = tuple(
        (column, tuple(functions), expression)
        for column, (functions, expression) in compiler.get_converters(select).items()
    )
    return _Compiled(sql, tuple(fixed), converters, starts, compiler.annotation_col_map["seen_events"])


def _last_table_seen() -> Subquery:
    """For a seat: the log's length when the newest table of the match that reached its
    player was written. A newer table replaces an older one still waiting to go, so a
    table lists what came after it."""
    reached = Outbox.objects.filter(
        recipient=OuterRef("player"),
        match=OuterRef("match"),
        replaces=Concat(Value(TABLE_KEY), OuterRef("match__code")),
        status__in=(Outbox.Status.SENDING, Outbox.Status.SENT, Outbox.Status.DELIVERED),
    )
    return Subquery(reached.order_by("-pk").values("event_count")[:1])
