"""What a level would play, what every move is worth, and why: for advice and review.

A computer sitter advises its captain (R3.2), a computer captain weighs a
person's suggestion against its own choice, ``hint`` answers a learner and
the match page marks the moves ``hard`` would have played otherwise: each
asks ``appraise`` for the same three things. The evaluation is always the
search's (``search.evaluate``), whatever the level, so that values from
different levels can be compared; the choice is the level's own.

>>> import random
>>> from games.engine import DECK, deal
>>> from games.engine.bots import bot_view
>>> hand = deal(random.Random(3).sample(DECK, 52))
>>> appraisal = appraise(bot_view(hand, hand.to_move), budget=0.02)
>>> appraisal.choice in appraisal.values and isinstance(appraisal.reason, Reason)
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from .bots import BotView, StrongBot, _joins_meld, _meld_outs, _neighbours, _same_rank
from .cards import POINTS, Card, mask_of
from .hand import Action, Discard, Knock, Take
from .levels import level_of, make_strategy
from .melds import deadwood_of_mask
from .search import candidates, preferred, search, summary


class Reason(StrEnum):
    """Why a move, in a few words; games/text words each for the players."""

    GIN = "gin"  # knock with nothing left over (R8.3)
    KNOCK_NOW = "knock_now"  # the count is low enough, and waiting would cost more
    PLAY_FOR_GIN = "play_for_gin"  # a knock is open, but playing on for gin is worth more
    UNDERCUT_RISK = "undercut_risk"  # a knock is open, but he likely holds as low a count (R8.4)
    TAKE_COMPLETES_MELD = "take_completes_meld"  # the pile's top card makes a meld
    TAKE_BUILDS_MELD = "take_builds_meld"  # the pile's top card is a step towards a meld
    TAKE_LOW_CARD = "take_low_card"  # the pile's top card melds with nothing held, but is low
    TOP_CARD_NO_HELP = "top_card_no_help"  # the pile's top card helps less than an unknown one
    SHEDS_DEADWOOD = "sheds_deadwood"  # throws an unmatched card no other is worth more than
    KEEPS_CHANCES = "keeps_chances"  # of unmatched cards worth as much, keeps those with more outs
    KEEPS_MELD = "keeps_meld"  # every higher card is in a meld: they stay
    BUILDS_MELD = "builds_meld"  # keeps a pair or a near run that cards not yet seen can complete
    SAFE_DISCARD = "safe_discard"  # he did not want that rank or its neighbours
    AVOIDS_FEEDING = "avoids_feeding"  # the lower-count discard would help what he collects
    BREAKS_MELD = "breaks_meld"  # against a suggestion: the card it would throw is in a meld
    FEEDS_OPPONENT = "feeds_opponent"  # against a suggestion: its card melds with what he took
    ONLY_MOVE = "only_move"  # nothing else was allowed (R5.4: the forced draw)


@dataclass(frozen=True)
class Appraisal:
    """A level's choice for a view, the value of every legal action, and why.

    ``values`` are in points of this hand for the player to move: the mean,
    over the deals of the hidden cards the search tried, of what the hand
    scores for him at its end (R8), positive when he scores and negative when
    the opponent does, a drawn hand 0 (R9). Near the end of a match a result
    counts at most the points its scorer needs to reach the target, plus
    ``search.MATCH_BONUS`` for reaching it (R10.1). So ``values[choice] -
    values[other]`` is what ``other`` costs, in points, by the search.
    """

    choice: Action
    values: Mapping[Action, float]
    reason: Reason
    card: Card | None = None  # the card the reason names: for AVOIDS_FEEDING, the discard it shuns


def appraise(
    view: BotView,
    level: str = "hard",
    rng: random.Random | None = None,
    budget: float | None = None,
    weigh: Sequence[Action] = (),
) -> Appraisal:
    """What ``level`` would play for the player of ``view`` (who must be to move),
    every legal action's value, and the reason for the choice.

    For ``hard`` the choice is the one ``HardBot`` plays: the normal level's,
    unless the search finds another clearly better (``search.preferred``), so
    another action's value may be a little above it by chance. For another level
    (``easy``, ``normal`` or their old names) it is that level's own move,
    valued by the same search. The actions the hard level weighs (and the
    level's own choice) are played in every deal the budget allows; the
    others in the first ``search.FIRST_WORLDS`` only, so their values are
    rougher: a few points either way. ``weigh`` names moves to value as closely
    as those, without making them the level's choice or changing it (their
    playouts are not charged to the budget): the move a person suggested or
    played, when what it costs is to be told him, against the very choice a
    ``hint`` gave him in that position. ``rng`` is the only chance
    used (a fixed seed when None), so an appraisal repeats; ``budget`` is the
    search's seconds (``search.DEFAULT_BUDGET`` when None).
    """
    rng = rng or random.Random(0)
    name = level_of(level)
    short_list = candidates(view, StrongBot(random.Random(0)))
    if name != "hard":
        own = make_strategy(name, rng).choose(view)
        short_list = [own] + [action for action in short_list if action != own]
    results, finalists = search(view, rng, budget, short_list, value_all=True, also=weigh)
    choice = preferred(results, short_list) if name == "hard" else short_list[0]
    values = MappingProxyType(dict(summary(results, finalists).values))
    return Appraisal(choice, values, *reason_for(view, choice, values))


def reason_for(view: BotView, choice: Action, values: Mapping[Action, float]) -> tuple[Reason, Card | None]:
    """The few words that explain ``choice`` in ``view``, from the cards and the values,
    and the card they name, if any: a learner told that the lower discard would feed
    the opponent must be told which card that is."""
    mine = mask_of(view.cards)
    if len(view.legal_actions) == 1:
        return Reason.ONLY_MOVE, None
    if isinstance(choice, Knock):
        return (Reason.GIN if deadwood_of_mask(mine ^ 1 << choice.card) == 0 else Reason.KNOCK_NOW), None
    if isinstance(choice, Discard):
        return _discard_reason(view, mine, choice, values)
    top = view.pile[-1] if view.pile else None
    if isinstance(choice, Take) and top is not None:
        if _joins_meld(mine, top):
            return Reason.TAKE_COMPLETES_MELD, None
        return (Reason.TAKE_BUILDS_MELD if _neighbours(mine) >> top & 1 else Reason.TAKE_LOW_CARD), None
    return Reason.TOP_CARD_NO_HELP, None


def objection(view: BotView, suggestion: Action) -> Reason | None:
    """What is wrong with a suggested move in itself, when a computer captain declines it:
    a discard (or a knock) of a card that is in a meld in every way of arranging the
    hand, or of a card that melds with what the opponent took from the pile (the card
    is the suggestion's own: the captain's own reason would name another). Otherwise
    None, and the captain gives the reason for its own choice."""
    if not isinstance(suggestion, Discard | Knock):
        return None
    card = suggestion.card
    if _joins_meld(mask_of(view.cards) ^ 1 << card, card):
        return Reason.BREAKS_MELD
    return Reason.FEEDS_OPPONENT if _feeding(view) >> card & 1 else None


def _feeding(view: BotView) -> int:
    """The cards that meld with those the opponent took from the pile, or are next to them."""
    holds = mask_of(view.opponent_holds)
    return _meld_outs(holds) | _neighbours(holds)


def _discard_reason(
    view: BotView, mine: int, choice: Discard, values: Mapping[Action, float]
) -> tuple[Reason, Card | None]:
    knocks = [action for action in values if isinstance(action, Knock)]
    if knocks:
        best_knock = max(values[action] for action in knocks)
        return (Reason.UNDERCUT_RISK if best_knock < 0 else Reason.PLAY_FOR_GIN), None
    discards = [action.card for action in values if isinstance(action, Discard)]
    counts = {card: deadwood_of_mask(mine ^ 1 << card) for card in discards}
    plain = min(discards, key=lambda card: (counts[card], -POINTS[card % 13], -card))
    feeding = _feeding(view)
    thrown = mask_of(set(view.opponent_discards) | set(view.opponent_refused))
    unwanted = _same_rank(thrown) | _neighbours(thrown) & ~feeding
    card = choice.card
    if card != plain and counts[card] > counts[plain]:
        if feeding >> plain & 1:
            return Reason.AVOIDS_FEEDING, plain
        if unwanted >> card & 1:
            return Reason.SAFE_DISCARD, None
        return Reason.BUILDS_MELD, None
    if unwanted >> card & 1 and POINTS[card % 13] < max(POINTS[c % 13] for c in discards):
        return Reason.SAFE_DISCARD, None
    if any(POINTS[c % 13] > POINTS[card % 13] for c in discards):
        return Reason.KEEPS_MELD, None
    return _among_equals(view, mine, card, [c for c in discards if c != card and counts[c] == counts[card]], unwanted)


def _among_equals(
    view: BotView, mine: int, card: Card, equals: list[Card], unwanted: int
) -> tuple[Reason, Card | None]:
    """Why ``card`` rather than another unmatched card worth as much (``equals``): "no
    unmatched card is worth more" alone read, to a learner holding three tens, as no
    reason for this one. The hand it keeps has more outs (cards still unseen that would
    make a meld: none on the pile or taken by the opponent), or the opponent did not
    want its rank or its neighbours."""
    if not equals:
        return Reason.SHEDS_DEADWOOD, None
    gone = mask_of(view.pile) | mask_of(view.opponent_holds)

    def outs(thrown: Card) -> int:
        return (_meld_outs(mine ^ 1 << thrown) & ~gone).bit_count()

    kept, others = outs(card), [outs(other) for other in equals]
    if kept > max(others):
        return Reason.KEEPS_CHANCES, None
    if unwanted >> card & 1:
        return Reason.SAFE_DISCARD, None
    if kept == max(others) > min(others):
        return Reason.KEEPS_CHANCES, None
    return Reason.SHEDS_DEADWOOD, None
