"""What the moderators' desk may read of the events and messages that can hold a secret.

A sitter's suggestion names a card of the captain's hand, team talk may name the
cards of a hand in play, and a message may show its reader's cards: each is
hidden from the desk while it could still give a hand away, except team talk
that a player has reported (``report TEXT``). A hand's deck and salt are shown
by ``public.is_revealed``.
"""

from __future__ import annotations

from django.db.models import Q

from games.contract import Notice
from games.models import Event, Match, Outbox, Report
from games.services.read.public import is_revealed
from games.services.read.tables import computer_said

HIDDEN = "…"


def event_text(event: Event) -> str:
    """An event's data as the moderation desk may show it. Moves name only
    cards laid face up, and "hand_over" reveals a deck that is public by then;
    a sitter's suggestion names a card of the captain's hand, so it is hidden
    until that hand is revealed. Team talk may name the cards of a hand in
    play too: it is read only once the match is over, or once a player has
    reported the match (``report TEXT``) and the desk must see what was said."""
    data = dict(event.data)
    if (
        event.kind == Event.Kind.SUGGESTION
        and "move" in data
        and event.hand
        and not is_revealed(event.match, event.hand)
    ):
        data["move"] = HIDDEN
    if event.kind == Event.Kind.TEAM and not team_talk_open(event.match):
        data = {key: value if key == "advice" else HIDDEN for key, value in data.items()}
    return ", ".join(f"{key}: {value}" for key, value in data.items())


def team_notice(event: Event) -> Notice | None:
    """A computer partner's line of team talk as the notice its partner read, for the
    desk to word as he read it, once the desk may read the match's team talk; None for
    any other event, or while it may not (``event_text`` hides it then)."""
    if event.kind != Event.Kind.TEAM or event.hand is None or not team_talk_open(event.match):
        return None
    return computer_said(event.hand, event.actor.display_name if event.actor else "", event.data)


def team_talk_open(match: Match) -> bool:
    """Whether the desk may read a match's team talk: it is over, or it was reported."""
    ended = match.status in (Match.Status.FINISHED, Match.Status.ABORTED)
    return ended or Report.objects.filter(match=match).exists()


def message_text(message: Outbox) -> str | None:
    """An outgoing message's text for the moderation desk. A message may show
    its recipient's cards, so while a hand they could belong to is in play (its
    match runs; for a reply, which names no match, any match runs in which he
    sits or was dealt the hand in play, as a player whose seat a moderator gave
    to a computer was) it is not shown: None."""
    if message.match_id:
        matches = Match.objects.filter(pk=message.match_id)
    else:
        reader = message.recipient_id
        matches = Match.objects.filter(
            Q(seats__player=reader)
            | Q(current_hand__box_player=reader)
            | Q(current_hand__captain_player=reader)
            | Q(current_hand__sitter_player=reader)
        )
    if matches.filter(status=Match.Status.RUNNING).exists():
        return None
    return message.text
