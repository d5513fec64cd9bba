"""Players and their identities on each channel."""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from games.models import Match, Player, Strength
from games.services.plumbing.clocks import DEFAULT_ZONE
from games.text.protocol import ProtocolError, clean, time_zone

LANGUAGES = {code for code, _name in settings.LANGUAGES}
# The default level (plain ``bot``) keeps the computers' first name, "Bot": its players
# were the strong ones before there were levels, and the scoreboard goes on counting them.
LEVEL_NAMES = {Strength.EASY: "Easy", Strength.NORMAL: "Bot", Strength.HARD: "Hard"}
REGISTER_ATTEMPTS = 20  # names taken by first contacts at the same moment, one after another


def language_of(code: str | None) -> str:
    """The closest language we speak to what a client says ('pt-br' -> 'en')."""
    base = (code or "").lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else "en"


@transaction.atomic
def telegram_player(user_id: int, chat_id: int, name: str, username: str = "", language: str = "") -> Player:
    """The player of a Telegram user, registered on first contact. His name and username
    are Telegram's, which may hold any character: what nobody types on purpose (NUL,
    which PostgreSQL refuses, other control and format characters) is left out."""
    name, username = printable(name), printable(username)
    player, created = _registered(
        Player.objects.select_for_update(),
        {"telegram_user_id": user_id},
        name[:60] or username[:60] or "Player",
        language=language_of(language),
    )
    changed = {"telegram_chat_id": chat_id, "telegram_username": username[:64], "telegram_blocked": False}
    if created or any(getattr(player, field) != value for field, value in changed.items()):
        for field, value in changed.items():
            setattr(player, field, value)
        player.save()
    return player


@transaction.atomic
def phone_player(phone: str) -> tuple[Player, bool]:
    """The player of a phone number, registered by his first message, named "Player"
    and the number's last four digits until he chooses a name (``name NAME``)."""
    return _registered(Player.objects.select_for_update(), {"phone": phone}, f"Player {phone[-4:]}")


def computer_player(match: Match, strength: str) -> Player:
    """A computer player of ``strength`` not yet seated in ``match``. Computer
    players are shared by every match, so the scoreboard counts each of them
    once. They are named by their level, "Easy 1", "Bot 2" (normal), "Hard 1", short
    enough for an SMS table; a name is one for every language, like a person's."""
    seated = set(match.seats.values_list("player_id", flat=True))
    label = LEVEL_NAMES[Strength(strength)]
    number = 0
    while True:
        number += 1
        name = f"{label} {number}"
        holder = Player.objects.filter(display_name__iexact=name).first()
        if holder is None:
            holder, _created = Player.objects.get_or_create(
                display_name=name, is_computer=True, defaults={"strength": strength}
            )
        if holder.is_computer and holder.pk not in seated:  # a person may have taken the name first
            return holder


@transaction.atomic
def terminal_player(user: str, name: str = "", language: str = "") -> Player:
    """The player of a terminal name, registered on first use in ``language`` (his
    locale's, or the one he asked for); a known player keeps the one he chose."""
    player, _created = _registered(
        Player.objects.all(), {"terminal_user": user}, (name or user)[:60], language=language_of(language)
    )
    return player


def printable(text: str) -> str:
    r"""``text`` without control and format characters, its spaces single.

    >>> printable("Ann\x00\u202e  Lee\n")
    'Ann Lee'
    """
    return " ".join(clean(text).split())


# "You" in the languages we speak: a player so named would be read by the others as
# themselves ("You goes gin!"). Not the words that are people's names too (Tu, Anda).
READER_WORDS = frozenset({"you", "אתה", "את", "ти", "तुम्ही", "तू", "awak", "kamu"})


def reads_as_the_reader(name: str) -> bool:
    return name.casefold() in READER_WORDS


def free_name(wanted: str) -> str:
    """``wanted``, or with the first number that makes it nobody else's ("Alex 2"): a
    name on a table or the scoreboard must say which player it is, and never read
    as the reader ("You 2"). Only a new player's first name is chosen so; ``name NAME``
    refuses a name that is taken."""
    name, number = wanted, 1
    while reads_as_the_reader(name) or Player.objects.filter(display_name__iexact=name).exists():
        number += 1
        name = f"{wanted} {number}"
    return name


def adopt_device_zone(player: Player, zone: str) -> bool:
    """The time zone a device of his reports (the table's page) becomes his, if he has
    none of his own: he never named one with ``tz`` and no device reported one before.
    Deadlines are then told in his time everywhere; ``tz`` still changes it. True if it did."""
    if player.time_zone_set or player.time_zone != DEFAULT_ZONE:
        return False
    try:
        name = time_zone(zone)
    except ProtocolError:
        return False
    adopted = Player.objects.filter(pk=player.pk, time_zone_set=False, time_zone=DEFAULT_ZONE)
    if not adopted.update(time_zone=name, time_zone_set=True):
        return False
    player.time_zone, player.time_zone_set = name, True
    return True


def _registered(players: QuerySet[Player], identity: dict[str, object], wanted: str, **fields: object):
    """``get_or_create`` of the player with ``identity``, a new one named ``free_name(wanted)``.

    The name is checked before it is written, so a player registered at the same
    moment may take it in between; the database refuses the second (the
    ``player_name_unique`` constraint) and the next free number is taken. Each
    attempt is a savepoint of its own (``get_or_create``'s), so a lost race
    leaves the caller's transaction usable."""
    for attempt in range(REGISTER_ATTEMPTS):
        try:
            return players.get_or_create(**identity, defaults={"display_name": lambda: free_name(wanted), **fields})
        except IntegrityError:
            if attempt == REGISTER_ATTEMPTS - 1:
                raise
