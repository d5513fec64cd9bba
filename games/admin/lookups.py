"""What the moderation desk may filter, search and sort on.

Django's admin filters a list on any field named in its query string
(``?text__contains=7h``), follows relations (``?match__hands__deck__startswith=``),
searches (``?q=``) and sorts (``?o=``). Each of those answers with a count or
an order, so a filter on a hidden field tells the hidden value one question
at a time, even where the value itself is never shown: 11 filters on a live
message's text would give away a whole hand. So no filter, search or ordering
may read a field that can hold a secret, whatever the row: a deck, a salt, a
suggestion, a message's text and buttons, an event's data, a link code, a sign-in
link's token. Such
a request is refused with a 400, as Django refuses any lookup it does not
allow; what is shown of those fields, and when, is decided by
``games.services.read.public`` and ``games.services.read.desk``.

A filter on a public field with a value its column cannot take (a word for a
duration, a JSON containment on SQLite) is answered as Django answers any
bad filter, by the list with an error flag (``?e=1``), never a 500.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import nullcontext

from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import FieldDoesNotExist
from django.db import DatabaseError, connections, models, transaction
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest

from ..models import Event, Hand, Outbox, PhoneLink, SignInLink

HIDDEN_FIELDS: dict[type[models.Model], frozenset[str]] = {
    Hand: frozenset({"deck", "salt", "suggestion"}),
    Event: frozenset({"data"}),  # a suggestion names a card of the captain's hand
    Outbox: frozenset({"text", "buttons"}),  # a table shows its reader's cards
    PhoneLink: frozenset({"code_hash"}),
    SignInLink: frozenset({"token_hash"}),
}


def reads_hidden(model: type[models.Model], path: str) -> bool:
    """Whether a lookup path (``match__hands__deck__startswith``) reads a hidden
    field on its way from ``model``."""
    for part in path.lstrip("-").split(LOOKUP_SEP):
        try:
            field = model._meta.get_field(part)
        except FieldDoesNotExist:
            return False  # a lookup, a transform or "pk": no field further on
        if field.name in HIDDEN_FIELDS.get(model, ()):
            return True
        if not field.is_relation or field.related_model is None:
            return False
        model = field.related_model
    return False


def _ordering_reads_hidden(model: type[models.Model], ordering: object) -> bool:
    if ordering is None:
        return False
    if isinstance(ordering, str):
        return reads_hidden(model, ordering)
    references = getattr(ordering, "flatten", lambda: [ordering])()
    return any(reads_hidden(model, getattr(each, "name", "")) for each in references)


def _search_path(field: str) -> str:
    return field.lstrip("^=@")


class GuardedChangeList(ChangeList):
    """A list that sorts by no hidden column and answers a bad filter with ``?e=1``."""

    def get_ordering_field(self, field_name: str) -> object:
        ordering = super().get_ordering_field(field_name)
        return None if ordering is None or _ordering_reads_hidden(self.model, ordering) else ordering

    def get_queryset(self, request: HttpRequest, exclude_parameters: Iterable[str] | None = None) -> models.QuerySet:
        queryset = super().get_queryset(request, exclude_parameters)
        try:
            queryset.query.get_compiler(queryset.db).as_sql()
        except Exception as error:  # as Django's own check of a filter: no other way to tell a bad value
            raise IncorrectLookupParameters(error) from error
        return queryset

    def get_results(self, request: HttpRequest) -> None:
        """Count and fetch the page here, where a value the database refuses (on
        PostgreSQL a NUL, a malformed range) becomes ``?e=1``. Inside a
        transaction that takes a savepoint, since on PostgreSQL a failed query
        spoils the transaction; outside one, none, so that reading a list never
        takes SQLite's write lock (its transactions begin IMMEDIATE)."""
        in_transaction = connections[self.queryset.db].in_atomic_block
        try:
            with transaction.atomic(using=self.queryset.db) if in_transaction else nullcontext():
                super().get_results(request)
                self.result_list = list(self.result_list)
        except DatabaseError as error:
            raise IncorrectLookupParameters(error) from error


class GuardedLookups:
    """For a ModelAdmin: every filter, search and ordering of its list reads public fields only."""

    model: type[models.Model]

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        if reads_hidden(self.model, lookup):
            return False
        return super().lookup_allowed(lookup, value, request)

    def get_search_fields(self, request: HttpRequest) -> list[str]:
        fields = super().get_search_fields(request)
        return [field for field in fields if not reads_hidden(self.model, _search_path(field))]

    def get_list_filter(self, request: HttpRequest) -> list:
        filters = super().get_list_filter(request)
        return [each for each in filters if not self._filter_reads_hidden(each)]

    def _filter_reads_hidden(self, list_filter: object) -> bool:
        field = list_filter[0] if isinstance(list_filter, (list, tuple)) else list_filter
        return isinstance(field, str) and reads_hidden(self.model, field)

    def get_sortable_by(self, request: HttpRequest) -> list[str]:
        columns = super().get_sortable_by(request)
        return [column for column in columns if not self._column_reads_hidden(column)]

    def _column_reads_hidden(self, column: object) -> bool:
        if not isinstance(column, str):
            return _ordering_reads_hidden(self.model, getattr(column, "admin_order_field", None))
        try:
            self.model._meta.get_field(column)
        except FieldDoesNotExist:
            shown = getattr(self, column, None) or getattr(self.model, column, None)
            return _ordering_reads_hidden(self.model, getattr(shown, "admin_order_field", None))
        return reads_hidden(self.model, column)

    def get_ordering(self, request: HttpRequest) -> list:
        ordering = super().get_ordering(request) or []
        return [each for each in ordering if not _ordering_reads_hidden(self.model, each)]

    def get_changelist(self, request: HttpRequest, **kwargs: object) -> type[ChangeList]:
        return GuardedChangeList
