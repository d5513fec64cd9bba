"""A computer partner: the computer sitter's advice, the computer captain's reading of a
person's advice, and the hints a learner gets against computers.

The computer reads the same view a computer player gets (``mover_view``,
the engine's ``bot_view``): no card it may not see. What it says goes to its partner
only, and what it plays is logged and shown like any computer move, so that the box
learns nothing of the advice (R3.2).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict

from django.conf import settings
from django.utils import timezone

from games.contract import Notice
from games.contract import advice as a
from games.contract.moves import Suggested
from games.engine import Action, Event, Role, parse_action
from games.engine.advice import Appraisal, appraise, objection, reason_for
from games.engine.bots import BotView, bot_view
from games.engine.search import DEFAULT_BUDGET
from games.models import Event as LogEvent
from games.models import Outbox, Player, Strength
from games.services.errors import ServiceError
from games.services.plumbing import outbox, state
from games.services.plumbing.change import current
from games.services.write.announcements import since_last_turn, table_key, with_missed
from games.services.write.locked_table import Table
from games.services.write.turns import advice_wait, computer_advises, suggestion_stands

# A computer captain plays its sitter's suggestion unless, by its own evaluation, the
# suggestion is worth more than this many points less than its own choice (a hand's
# points for the team, as the level's evaluation expects them).
ADVICE_MARGIN = 2.0
HINT_LEVEL = Strength.HARD
QUICK_LOOK = 0.05  # seconds of search when only the reason needs the values


def public_log(table: Table, moves: int | None = None) -> list[Event]:
    """The hand's moves (its first ``moves``, all when None) as everyone saw them: a
    draw never carries its card."""
    log = []
    for data in table.moves[:moves]:
        action = parse_action(data["move"])
        log.append(Event(str(action).split()[0], Role(data["role"]), getattr(action, "card", None)))
    return log


def mover_view(table: Table) -> BotView:
    """What the seat to move may know (``bot_view``), which is all a computer reads:
    its advice for a captain is made from the captain's view (R3.2)."""
    return view_before(table, len(table.moves))


def view_before(table: Table, moves: int) -> BotView:
    """What the player to move after the hand's first ``moves`` moves knew then."""
    hand = (
        table.hand if moves == len(table.moves) else state.load_hand(table.match, table.hand_row, table.moves[:moves])
    )
    role = hand.to_move
    scores = {role: table.seat(table.position_of_role(role)).score}
    scores[role.opponent] = table.seat(table.position_of_role(role.opponent)).score
    return bot_view(hand, role, public_log(table, moves), scores)


def chance(table: Table, level: str) -> random.Random:
    """A computer's chance for the move to make now (``position_chance``)."""
    return position_chance(table.hand_row.commitment, len(table.moves), level)


def position_chance(commitment: str, moves: int, level: str) -> random.Random:
    """The chance of a computer of ``level`` in a position: the hand (its commitment)
    after ``moves`` moves. A task run twice chooses the same; and a hint, a hard
    sitter's suggestion, a hard player's move and the review of that position all
    search the same worlds, so they name the same move (with the same budget)."""
    return random.Random(f"{commitment}:{moves}:{level}")


def search_budget() -> float:
    """The seconds the hard level's search may spend on a move (``GIN3_HARD_SECONDS``,
    else the engine's own default)."""
    return DEFAULT_BUDGET if settings.GIN3_HARD_SECONDS is None else settings.GIN3_HARD_SECONDS


def appraisal(table: Table, level: str, budget: float | None = None, weigh: Sequence[Action] = ()) -> Appraisal:
    """How a computer of ``level`` sees the move to make now, from the mover's view.
    ``budget``: the search's seconds, if fewer than a move's (``search_budget``);
    ``weigh``: moves to value as closely as its own choice (``appraise``)."""
    return appraise(mover_view(table), level, chance(table, level), budget or search_budget(), weigh)


def waiting_suggestion(table: Table) -> Action | None:
    """The sitter's latest suggestion, if it was made for this moment and is still legal."""
    hand_row = table.hand_row
    if table.hand.to_move is not Role.CAPTAIN or not suggestion_stands(hand_row, table.match):
        return None
    action = parse_action(hand_row.suggestion)
    return action if action in table.hand.legal_actions() else None


# The sitter's advice -------------------------------------------------------------


def advise_as_computer(table: Table) -> bool:
    """The computer sitter suggests its level's choice to the person who captains, once
    for each moment; True if it did. A forced draw (R5.4) it lets pass in silence,
    marked as advised so that the moment is not offered to it again."""
    hand_row = table.hand_row
    if not computer_advises(table) or hand_row.suggestion_version == table.match.version:
        return False
    if table.hand.is_forced:
        hand_row.suggestion, hand_row.suggestion_version = "", table.match.version
        hand_row.save(update_fields=["suggestion", "suggestion_version"])
        return False
    sitter = table.position_of_role(Role.SITTER)
    level = table.seat(sitter).player.strength or Strength.NORMAL
    # Only hard chooses by the search; the others need it only for the words of the reason.
    seen = appraisal(table, level, None if level == Strength.HARD else QUICK_LOOK)
    record_suggestion(table, table.seat(sitter).player, seen.choice, str(seen.reason), named(seen))
    return True


def record_suggestion(table: Table, sitter: Player, action: Action, reason: str = "", card: str = "") -> Suggested:
    """The sitter's suggestion, waiting for the captain's ``accept``: the captain gets his
    table with it, or only the suggestion where that table would come as a second one
    (``outbox.replaces_table``: by SMS or in the terminal the same table twice was two
    messages). A computer captain waiting for it reads it at once."""
    hand_row = table.hand_row
    move = str(action)
    hand_row.suggestion = move
    hand_row.suggestion_version = table.match.version
    hand_row.save(update_fields=["suggestion", "suggestion_version"])
    data = {"move": move, "reason": reason} if reason else {"move": move}
    if card:
        data["card"] = card
    state.append_event(table.match, LogEvent.Kind.SUGGESTION, hand_row, sitter, **data)
    captain = table.seat(table.position_of_role(Role.CAPTAIN))
    if table.computer_plays(captain.position):
        table.match.deadline = timezone.now()  # its wait is over: the clock scan plays it if the task is lost
        current().computer_move(table.match)
    elif outbox.replaces_table(captain.player, table.match, table_key(table.match.code)):
        moves = with_missed(table, captain.position, since_last_turn(table, captain.position))
        view = table.view(captain.position, moves)
        outbox.send(captain.player, Outbox.Kind.SUGGESTION, view, table.match, replaces=table_key(table.match.code))
    else:
        outbox.send(captain.player, Outbox.Kind.SUGGESTION, a.SuggestionWaiting(table.match.code, move), table.match)
    return Suggested(captain.player.display_name, move)


def answer_why(table: Table, captain: Player) -> None:
    """A computer sitter answers its captain's team message with why it suggested what it
    suggested last in this hand."""
    sitter = table.seat(table.position_of_role(Role.SITTER)).player
    last = (
        table.hand_row.events.filter(kind=LogEvent.Kind.SUGGESTION, actor=sitter)
        .order_by("-seq")
        .values("data")
        .first()
    )
    code = table.match.code
    notice: Notice
    if last is None:
        notice = a.NoAdviceYet(code, sitter.display_name)
    else:
        said = last["data"]
        notice = a.AdviceReason(code, sitter.display_name, said["move"], said.get("reason", ""), said.get("card", ""))
    tell_team(table, sitter, captain, notice)


def answer_as_captain(table: Table, sitter: Player) -> None:
    """A computer captain answers its sitter's team message with why it played its last
    move of the hand, judged from what it knew then: the reason for that move by the
    values its level's search gives them (``reason_for``); or, if that move was his
    suggestion, what its own choice was worth more, searched as when it chose
    (``read_suggestion``): a reason of the suggestion's own merits would read as if the
    captain had chosen it."""
    captain = table.seat(table.position_of_role(Role.CAPTAIN))
    code, name = table.match.code, captain.player.display_name
    played = [index for index, data in enumerate(table.moves) if data["role"] == Role.CAPTAIN.value]
    notice: a.PlayReason | a.PlayedYourSuggestion | a.NothingPlayedYet
    if not played:
        notice = a.NothingPlayedYet(code, name)
    else:
        index = played[-1]
        move = parse_action(table.moves[index]["move"])
        view = view_before(table, index)
        level = captain.player.strength or Strength.NORMAL
        chance = position_chance(table.hand_row.commitment, index, level)
        if _was_suggested(table, sitter, index):
            seen = appraise(view, level, chance, search_budget(), (move,))
            margin = seen.values[seen.choice] - seen.values[move]
            notice = a.PlayedYourSuggestion(code, name, str(move), str(seen.choice), margin)
        else:
            seen = appraise(view, level, chance, QUICK_LOOK, (move,))
            reason, card = reason_for(view, move, seen.values)
            notice = a.PlayReason(code, name, str(move), str(reason), str(card) if card is not None else "")
    tell_team(table, captain.player, sitter, notice)


def _was_suggested(table: Table, sitter: Player, index: int) -> bool:
    """Whether the hand's move ``index`` was what ``sitter`` suggested for it."""
    move = table.moves[index]
    after = table.moves[index - 1]["seq"] if index else 0
    suggested = table.hand_row.events.filter(
        kind=LogEvent.Kind.SUGGESTION, actor=sitter, seq__gt=after, seq__lt=move["seq"]
    )
    return any(data.get("move") == move["move"] for data in suggested.values_list("data", flat=True))


def tell_team(table: Table, speaker: Player, partner: Player, notice: a.ComputerTalk):
    """A computer partner's line of team talk: to its partner only, and in the hand's
    team talk, which his table's page shows in his language (``tables.team_talk``)."""
    outbox.send(partner, Outbox.Kind.TEAM, notice, table.match)
    fields = {key: value for key, value in asdict(notice).items() if key not in ("code", "name")}
    state.append_event(table.match, LogEvent.Kind.TEAM, table.hand_row, speaker, advice=type(notice).__name__, **fields)


# The captain reading a person's advice ---------------------------------------------


def wait_for_late_advice(table: Table, sitter: Player) -> bool:
    """Log a sitter's suggestion that came after his computer captain played, with no
    move, so that the captain waits for him from its next decision on; True if it was
    logged. A captain waits for advice at its first decision of a hand and at the others
    only once he has suggested something (``turns.waits_for_advice``): a sitter who
    missed the first could otherwise never advise again that hand."""
    captain = table.position_of_role(Role.CAPTAIN)
    if table.hand.is_over or not table.computer_plays(captain) or not (sitter.advises and advice_wait()):
        return False
    state.append_event(table.match, LogEvent.Kind.SUGGESTION, table.hand_row, sitter, late=True)
    return True


def person_suggestion(table: Table) -> Action | None:
    """A person sitter's suggestion waiting for the computer that captains, if legal now."""
    if table.hand.to_move is not Role.CAPTAIN or table.seat(table.position_of_role(Role.SITTER)).player.is_computer:
        return None
    return waiting_suggestion(table)


def read_suggestion(table: Table, level: str, suggestion: Action) -> Action:
    """What a computer captain plays, given its sitter's ``suggestion``: the suggestion
    unless its own evaluation finds it more than ``ADVICE_MARGIN`` worse than its own
    choice; then its own, and the sitter is told why in one line of team talk: what is
    wrong with the suggestion if it throws a melded card or one that would feed the
    opponent (``objection``), else why its own. The
    suggestion is valued in every deal its own choice is: valued in a few, a move that
    breaks a meld could pass for one within the margin."""
    seen = appraisal(table, level, weigh=(suggestion,))
    margin = seen.values[seen.choice] - seen.values[suggestion]
    if suggestion == seen.choice or margin <= ADVICE_MARGIN:
        return suggestion
    sitter = table.seat(table.position_of_role(Role.SITTER)).player
    wrong = objection(mover_view(table), suggestion)
    why, card = (str(wrong), str(getattr(suggestion, "card", ""))) if wrong else (str(seen.reason), named(seen))
    notice = a.AdviceDeclined(
        table.match.code, table.name(table.mover), str(suggestion), str(seen.choice), margin, why, card
    )
    tell_team(table, table.seat(table.mover).player, sitter, notice)
    return seen.choice


# Hints -------------------------------------------------------------------------------


def hint(table: Table, player: Player) -> a.Hint:
    """The hard level's choice for his move (or for his captain's, when he advises), and
    why. Only against computers: with another person in the match it would play for one
    of two people (fair play)."""
    code = table.match.code
    if any(not seat.player.is_computer for seat in table.seats if seat.player_id != player.pk):
        raise ServiceError(a.HintNotFair(code))
    position = table.position_of(player)
    advising = table.role_of(position) is Role.SITTER and table.hand.to_move is Role.CAPTAIN
    if position != table.mover and not advising:
        raise ServiceError(a.NothingToHint(code))
    seen = appraisal(table, HINT_LEVEL)
    move = f"suggest {seen.choice}" if advising else str(seen.choice)  # what he types to play it
    return a.Hint(code, move, str(seen.reason), named(seen))


def named(seen: Appraisal) -> str:
    """The card an appraisal's reason names, as the log and the notices keep it ("" if none)."""
    return str(seen.card) if seen.card is not None else ""
