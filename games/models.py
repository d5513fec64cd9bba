"""What lives in the database: players, matches, seats, hands, the event log and the outbox.

Game state is written only by ``games.services``. The engine's hand is not
stored as a blob: a hand row keeps its shuffled deck, and the hand is rebuilt
by replaying the actions in the event log, so the log is the one record of
what happened.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .engine import Options

LANGUAGE_CHOICES = settings.LANGUAGES


class Strength(models.TextChoices):
    SIMPLE = "simple", _("simple")
    STRONG = "strong", _("strong")


class Player(models.Model):
    """A person (or a computer player) and the ways to reach him."""

    class Notify(models.TextChoices):
        AUTO = "auto", _("where he last wrote from")
        TELEGRAM = "telegram", _("Telegram")
        SMS = "sms", _("SMS")

    display_name = models.CharField(max_length=64)
    language = models.CharField(max_length=8, choices=LANGUAGE_CHOICES, default="en")
    telegram_user_id = models.BigIntegerField(null=True, blank=True, unique=True)
    telegram_chat_id = models.BigIntegerField(null=True, blank=True)
    telegram_username = models.CharField(max_length=64, blank=True)
    telegram_blocked = models.BooleanField(default=False, help_text=_("He blocked the bot."))
    phone = models.CharField(max_length=32, null=True, blank=True, unique=True)
    sms_opted_out = models.BooleanField(default=False, help_text=_("He sent STOP."))
    terminal_user = models.CharField(max_length=64, null=True, blank=True, unique=True)
    notify_by = models.CharField(max_length=10, choices=Notify.choices, default=Notify.AUTO)
    last_channel = models.CharField(max_length=10, blank=True)
    tables_explained = models.BooleanField(default=False, help_text=_("He was told once how to read a table."))
    advises = models.BooleanField(default=True, help_text=_("As the sitter he gets the captain's cards to advise on."))
    is_computer = models.BooleanField(default=False)
    strength = models.CharField(max_length=10, choices=Strength.choices, blank=True)
    banned = models.BooleanField(default=False)
    ban_reason = models.TextField(blank=True)
    ban_expires_at = models.DateTimeField(null=True, blank=True, help_text=_("Empty: until unbanned."))
    merged_into = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="merged",
        help_text=_("The player whose number this was: he linked it. Kept so that the log still names who acted."),
    )
    created_at = models.DateTimeField(default=timezone.now)
    time_zone = models.CharField(
        max_length=64, default="UTC", help_text=_("Deadlines are shown in it, and quiet hours kept in it.")
    )
    quiet_from = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("Quiet hours start at this hour of his day (0-23).")
    )
    quiet_until = models.PositiveSmallIntegerField(null=True, blank=True, help_text=_("Quiet hours end at this hour."))
    away_until = models.DateTimeField(null=True, blank=True, help_text=_("Time off: his clocks wait until then."))

    class Meta:
        ordering = ["display_name", "pk"]

    def __str__(self) -> str:
        return self.display_name

    def is_banned(self, now: datetime | None = None) -> bool:
        if not self.banned:
            return False
        return self.ban_expires_at is None or self.ban_expires_at > (now or timezone.now())


class PhoneLink(models.Model):
    """A one-time code texted to a number to prove that a player holds that phone.

    ``phone NUMBER`` makes one and texts it; ``link CODE`` from that phone uses
    it. Only a keyed hash of the code is stored, so neither the database nor
    the admin shows a code that still works; a code dies when it is used,
    when it expires, or after a few wrong tries.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="phone_links")
    phone = models.CharField(max_length=32, db_index=True)
    code_hash = models.CharField(max_length=64)
    expires_at = models.DateTimeField()
    tries = models.PositiveSmallIntegerField(default=0, help_text=_("Wrong codes texted from the phone."))
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.player} {self.phone}"


class Match(models.Model):
    """A game of three players to the target score."""

    class Status(models.TextChoices):
        LOBBY = "lobby", _("waiting for players")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    code = models.CharField(max_length=8, unique=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LOBBY, db_index=True)
    gin_bonus = models.PositiveSmallIntegerField(default=25)
    undercut_bonus = models.PositiveSmallIntegerField(default=10)
    target = models.PositiveSmallIntegerField(default=100)
    may_discard_taken = models.BooleanField(default=False)
    move_seconds = models.PositiveIntegerField(default=86400)
    deadline = models.DateTimeField(
        null=True, blank=True, help_text=_("When the turn's time runs out; the clock scan acts then.")
    )
    remind_at = models.DateTimeField(
        null=True, blank=True, help_text=_("When the player to move is reminded; empty once he was.")
    )
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_remaining = models.DurationField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    event_count = models.PositiveIntegerField(default=0, help_text=_("The seq of the match's last event."))
    current_hand = models.ForeignKey("Hand", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    turn_seat = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("Seat position of the player to move.")
    )
    created_by = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    winner = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    telegram_group_chat_id = models.BigIntegerField(
        null=True, blank=True, help_text=_("A Telegram group that follows the public table and the results.")
    )
    group_language = models.CharField(max_length=8, choices=LANGUAGE_CHOICES, default="en")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    last_move_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    is_open = models.BooleanField(
        default=False, db_index=True, help_text=_("Listed in the public lobby for anyone to join.")
    )
    rematch_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rematches",
        help_text=_("The match its players agreed to play again."),
    )
    rematch_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("When the offer to play it again lapses; set by the first again, empty once settled."),
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "matches"
        indexes = [
            # The clock scan's (automation.next_due): the matches of a status whose
            # moment has come, in the order they came, whatever the size of the table.
            models.Index(fields=["status", "deadline"], name="match_due_deadline"),
            models.Index(fields=["status", "remind_at"], name="match_due_reminder"),
            models.Index(fields=["status", "rematch_until"], name="match_due_rematch"),
            # The public pages' lists: the last finished, the last moved, the open lobby.
            models.Index(fields=["status", "-finished_at", "-id"], name="match_recently_finished"),
            models.Index(fields=["status", "-last_move_at", "-id"], name="match_recently_moved"),
            models.Index(fields=["-created_at"], condition=Q(is_open=True, status="lobby"), name="match_open_lobby"),
        ]

    def __str__(self) -> str:
        return f"#{self.code}"

    @property
    def options(self) -> Options:
        return Options(
            gin_bonus=self.gin_bonus,
            undercut_bonus=self.undercut_bonus,
            target=self.target,
            may_discard_taken=self.may_discard_taken,
        )

    @property
    def is_paused(self) -> bool:
        return self.paused_at is not None


class Seat(models.Model):
    """A player's place in a match, with his running score."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()
    score = models.IntegerField(default=0)
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)
    autopilot = models.BooleanField(default=False, help_text=_("A computer player plays for him."))

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="one_player_per_position"),
            models.UniqueConstraint(fields=["match", "player"], name="one_seat_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.match}"


class Hand(models.Model):
    """One deal: its roles, its secret deck (with a public commitment) and its result."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    box = models.PositiveSmallIntegerField(help_text=_("Seat position of the box."))
    captain = models.PositiveSmallIntegerField()
    sitter = models.PositiveSmallIntegerField()
    deck = models.TextField(help_text=_("The shuffled order; secret until the hand ends."))
    salt = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64, help_text=_("SHA-256 of the salt and the deck."))
    suggestion = models.CharField(max_length=64, blank=True)
    suggestion_version = models.PositiveIntegerField(null=True, blank=True)
    result = models.CharField(max_length=10, blank=True)
    winner = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.PositiveSmallIntegerField(default=0)
    summary = models.JSONField(default=dict, blank=True, help_text=_("Arrangements and layoffs."))
    started_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    # Who played it, as dealt, and who earned its points: a seat may change hands
    # later (an admin's replacement) without rewriting the hands before.
    box_player = models.ForeignKey(Player, null=True, on_delete=models.PROTECT, related_name="+")
    captain_player = models.ForeignKey(Player, null=True, on_delete=models.PROTECT, related_name="+")
    sitter_player = models.ForeignKey(Player, null=True, on_delete=models.PROTECT, related_name="+")
    winner_player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+", help_text=_("Who scored it.")
    )

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="one_hand_per_number")]

    def __str__(self) -> str:
        return f"{self.match} hand {self.number}"

    @property
    def is_over(self) -> bool:
        return self.ended_at is not None


class AppendOnlyError(Exception):
    """The event log is never rewritten."""


class Event(models.Model):
    """One entry of a match's append-only log, ordered by ``seq`` within its match.

    Append-only twice over: here in Python, and in the database, whose
    triggers refuse every UPDATE and DELETE of a row (migration
    ``event_log_append_only``). Nothing it points to is ever deleted either:
    a match, a hand or a player who acted is protected."""

    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    hand = models.ForeignKey(Hand, null=True, blank=True, on_delete=models.PROTECT, related_name="events")
    kind = models.CharField(max_length=20)
    actor = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="event_seq_unique_in_match")]

    def __str__(self) -> str:
        return f"{self.match} #{self.seq} {self.kind}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise AppendOnlyError("events are never changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("events are never deleted")


class Outbox(models.Model):
    """A message to send, committed with the change that caused it."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        SENDING = "sending", _("sending")  # claimed by a worker until next_attempt_at (its lease)
        SENT = "sent", _("sent")
        FAILED = "failed", _("failed")
        SUPERSEDED = "superseded", _("not sent: a newer table replaced it")

    class Channel(models.TextChoices):
        TELEGRAM = "telegram", _("Telegram")
        SMS = "sms", _("SMS")
        TERMINAL = "terminal", _("terminal")

    recipient = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.CASCADE, related_name="outbox")
    channel = models.CharField(max_length=10, choices=Channel.choices)
    address = models.CharField(max_length=64)
    kind = models.CharField(max_length=20)
    text = models.TextField()
    buttons = models.JSONField(default=list, blank=True)
    replaces = models.CharField(
        max_length=40, blank=True, help_text=_("Messages with the same key may be edited in place.")
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    external_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        verbose_name = "outgoing message"
        indexes = [
            models.Index(fields=["status", "next_attempt_at"]),
            models.Index(fields=["channel", "address", "status"], name="outbox_address_unfinished"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.address} ({self.status})"


class ProcessedUpdate(models.Model):
    """An inbound update (a Telegram update_id, an SMS sid) already acted on,
    written in the same transaction as its effect so that a retry does nothing."""

    key = models.CharField(max_length=80, unique=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.key


# Records and ratings: kept by games.services.records and games.services.ratings in
# the transaction that finishes each hand and match, so that no page ever adds
# them up; ``manage.py recomputerecords`` rebuilds them from the log and the hands.

INITIAL_MU = 25.0
INITIAL_SIGMA = INITIAL_MU / 3


class PlayerRecord(models.Model):
    """A player's totals over finished matches, and his rating."""

    player = models.OneToOneField(Player, primary_key=True, on_delete=models.CASCADE, related_name="record")
    is_computer = models.BooleanField(default=False)
    search_name = models.CharField(max_length=64, help_text=_("The name case-folded, for search by its start."))
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0, help_text=_("Points he scored himself, hand by hand."))
    hands_won_box = models.PositiveIntegerField(default=0)
    hands_won_captain = models.PositiveIntegerField(default=0)
    knocks = models.PositiveIntegerField(default=0, help_text=_("Hands won by knocking (not gin)."))
    gins = models.PositiveIntegerField(default=0)
    undercuts = models.PositiveIntegerField(default=0, help_text=_("Hands won by undercutting the knocker."))
    mu = models.FloatField(default=INITIAL_MU)
    sigma = models.FloatField(default=INITIAL_SIGMA)
    rating = models.IntegerField(default=1000, help_text=_("What the pages show: a cautious estimate."))
    last_played = models.DateField(null=True, blank=True)

    class Meta:
        indexes = [
            # Partial: a boolean first in an index is no help to SQLite, which
            # reads ``WHERE NOT is_computer`` as no equality on it.
            models.Index(fields=["-rating", "player"], condition=Q(is_computer=False), name="record_people_ranking"),
            models.Index(fields=["-rating", "player"], condition=Q(is_computer=True), name="record_computer_ranking"),
            models.Index(fields=["search_name"], name="record_search"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id}: {self.rating}"

    @property
    def hands_won(self) -> int:
        return self.hands_won_box + self.hands_won_captain

    @property
    def points_per_hand_won(self) -> float | None:
        return self.points / self.hands_won if self.hands_won else None


class PlayerDay(models.Model):
    """One player's results of one day (UTC): the "last 30 days" adds up at most
    30 of these per player shown, whatever the size of the tables."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0)
    hands_won = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "day"], name="one_day_row_per_player")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.day}"


class PlayerMatch(models.Model):
    """A finished match as one of its players played it: his own points (which
    stay his if his seat changed hands) and what it did to his rating."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    finished_at = models.DateTimeField()
    won = models.BooleanField(default=False)
    points = models.PositiveIntegerField(default=0)
    rating_before = models.IntegerField(null=True, blank=True)
    rating_after = models.IntegerField(null=True, blank=True, help_text=_("Empty: not rated (he left the seat)."))

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "player"], name="one_result_per_player")]
        indexes = [models.Index(fields=["player", "-finished_at", "-match"], name="player_match_recent")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.match_id}"


class HeadToHead(models.Model):
    """How often ``player`` met ``opponent`` in finished matches, and who won."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    opponent = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0, help_text=_("Matches the opponent won."))

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "opponent"], name="one_row_per_pair")]
        indexes = [models.Index(fields=["player", "-matches", "opponent"], name="head_to_head_most")]

    def __str__(self) -> str:
        return f"{self.player_id} v {self.opponent_id}"


class TimeOff(models.Model):
    """A player's time off (``away``): his clocks wait from ``started_at`` to ``ended_at``.
    The periods count against his yearly allowance (``GIN3_AWAY_DAYS_PER_YEAR``)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="time_off")
    started_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(help_text=_("As planned, or when he came back if that was earlier."))

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [models.Index(fields=["player", "started_at"], name="time_off_of_player")]
        verbose_name_plural = "time off"

    def __str__(self) -> str:
        return f"{self.player} {self.started_at:%Y-%m-%d} - {self.ended_at:%Y-%m-%d}"


class Report(models.Model):
    """A player's word to the moderators about a match (``report TEXT``). A match with
    a report has its team chat open to the moderation desk (``visibility.event_text``)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)
    handled = models.BooleanField(default=False, db_index=True)

    class Meta:
        ordering = ["handled", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.match} {self.created_at:%Y-%m-%d %H:%M}"
