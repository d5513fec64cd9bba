"""The review of a finished hand: each move of a person where the hard level would
have chosen otherwise, and what that choice was worth by its evaluation.

It runs in the background once the hand has ended (``games.tasks.review_hand``, on
the review queue), within ``GIN3_REVIEW_SECONDS`` in all, and is stored once on the
hand row: a task that runs twice computes again and stores nothing. Each move is
judged from the view its player had then (``bot_view``), never from the cards he could
not see, by the search a ``hint`` ran there: the same chance (``advice.position_chance``)
and, while the review's time allows, the same budget, so that a mark names the move a
hint named and never marks a move that followed one. The page shows the review only
with the hand's cards, once the hand is over.

A mark is a claim that he could have done better, so it is made only when the move he
played, valued in every deal the search tried, falls at least ``REVIEW_MARGIN`` short
of hard's choice, and never on a move a hard computer sitter had suggested to him.
"""

from __future__ import annotations

import time
from collections.abc import Collection

from django.conf import settings

from games.engine import Event, Role, Take, deal, parse_action, parse_cards
from games.engine.advice import appraise
from games.engine.bots import bot_view
from games.models import Event as LogEvent
from games.models import Hand as HandRow
from games.services.write.advice import HINT_LEVEL, position_chance, search_budget

SHORTEST_LOOK = 0.02  # seconds: a move left less than this is not judged (the review is partial)
# Points a move must cost, by the evaluation, to be marked: a few tenths are within what
# two searches of the same position tell apart, and a mark says he could have done better.
REVIEW_MARGIN = 1.0


def review_hand(hand_id: int, seconds: float | None = None) -> bool:
    """Review a finished hand and store it, once; True if this call stored it.
    ``seconds``: the time it may take in all (``GIN3_REVIEW_SECONDS`` when None)."""
    hand_row = HandRow.objects.select_related("match").filter(pk=hand_id).first()
    if hand_row is None or not hand_row.is_over or hand_row.review is not None:
        return False
    review = _review(hand_row, settings.GIN3_REVIEW_SECONDS if seconds is None else seconds)
    return HandRow.objects.filter(pk=hand_id, review__isnull=True).update(review=review) == 1


def unreviewed(match_ids: Collection[int]) -> int | None:
    """The id of the earliest finished hand of these matches not reviewed yet, if any."""
    waiting = HandRow.objects.filter(match__in=match_ids, ended_at__isnull=False, review__isnull=True)
    return waiting.order_by("ended_at", "pk").values_list("pk", flat=True).first()


def _review(hand_row: HandRow, budget: float) -> dict:
    """``{"marks": [{"index", "better", "points", "why"}...], "complete"}``: ``index``
    counts the hand's moves from 0, as the public page lists them; ``why`` is the reason
    for hard's choice, with ``why_card`` the card it names and ``card`` the pile's card
    a take would have taken."""
    match = hand_row.match
    logged = list(
        hand_row.events.filter(kind=LogEvent.Kind.MOVE)
        .order_by("seq")
        .values_list("data", "actor__is_computer", "actor_id")
    )
    advised = _hard_advice(hand_row)
    people = [
        index
        for index, (data, computer, actor) in enumerate(logged)
        if actor is not None and not computer and advised.get(index) != data["move"]
    ]
    scores = _scores_before(hand_row)
    hand = deal(parse_cards(hand_row.deck), match.rules)
    log: list[Event] = []
    marks, complete = [], True
    stop = time.monotonic() + budget
    for index, (data, _computer, _actor) in enumerate(logged):
        action = parse_action(data["move"])
        if index in people:
            left = stop - time.monotonic()
            remaining = sum(1 for later in people if later >= index)
            if left / remaining < SHORTEST_LOOK:
                complete = False
            else:
                role = hand.to_move
                view = bot_view(hand, role, log, {role: scores[role], role.opponent: scores[role.opponent]})
                rng = position_chance(hand_row.commitment, index, HINT_LEVEL)
                budget = min(search_budget(), left / remaining)
                seen = appraise(view, HINT_LEVEL, rng, budget, weigh=(action,))
                gain = seen.values[seen.choice] - seen.values[action]
                if gain >= REVIEW_MARGIN:
                    mark = {
                        "index": index,
                        "better": str(seen.choice),
                        "points": round(gain, 1),
                        "why": str(seen.reason),
                    }
                    if seen.card is not None:
                        mark["why_card"] = str(seen.card)
                    if isinstance(seen.choice, Take):
                        mark["card"] = str(hand.pile[-1])  # the card he could have taken, public then
                    marks.append(mark)
        hand, events = hand.apply(action)
        log.extend(events)
    return {"marks": marks, "complete": complete}


def _hard_advice(hand_row: HandRow) -> dict[int, str]:
    """The suggestion a computer sitter of the hard level had made for each move of the
    hand it advised on, by the move's index: a captain who played it played hard's
    choice, which the review must not mark as otherwise (R3.2)."""
    advice: dict[int, str] = {}
    index, waiting = 0, ""
    for kind, data, computer, strength in (
        hand_row.events.filter(kind__in=(LogEvent.Kind.MOVE, LogEvent.Kind.SUGGESTION))
        .order_by("seq")
        .values_list("kind", "data", "actor__is_computer", "actor__strength")
    ):
        if kind == LogEvent.Kind.SUGGESTION:
            waiting = data["move"] if computer and strength == HINT_LEVEL else ""
            continue
        if waiting:
            advice[index] = waiting
        index, waiting = index + 1, ""
    return advice


def _scores_before(hand_row: HandRow) -> dict[Role, int]:
    """The game scores of the box and the captain when the hand was dealt."""
    won: dict[int, int] = {}
    earlier = HandRow.objects.filter(match=hand_row.match_id, number__lt=hand_row.number, winner__isnull=False)
    for seat, points in earlier.values_list("winner", "points"):
        if seat is not None:
            won[seat] = won.get(seat, 0) + points
    return {Role.BOX: won.get(hand_row.box, 0), Role.CAPTAIN: won.get(hand_row.captain, 0)}
