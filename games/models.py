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
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .contract.options import DEFAULTS, MatchOptions
from .engine import Options, Roles

LANGUAGE_CHOICES = settings.LANGUAGES


class Strength(models.TextChoices):
    """A computer player's level: the name of its strategy (``games.engine.levels.make_strategy``)."""

    EASY = "easy", _("easy")
    NORMAL = "normal", _("normal")
    HARD = "hard", _("hard")


class Player(models.Model):
    """A person (or a computer player) and the ways to reach him."""

    class Notify(models.TextChoices):
        AUTO = "auto", _("where he last wrote from")
        TELEGRAM = "telegram", _("Telegram")
        SMS = "sms", _("SMS")

    display_name = models.CharField(verbose_name=_("display name"), max_length=64)
    language = models.CharField(verbose_name=_("language"), max_length=8, choices=LANGUAGE_CHOICES, default="en")
    telegram_user_id = models.BigIntegerField(verbose_name=_("Telegram user ID"), null=True, blank=True, unique=True)
    telegram_chat_id = models.BigIntegerField(verbose_name=_("Telegram chat ID"), null=True, blank=True)
    telegram_username = models.CharField(verbose_name=_("Telegram username"), max_length=64, blank=True)
    telegram_blocked = models.BooleanField(
        verbose_name=_("Telegram blocked"),
        default=False,
        help_text=_(
            "Set when Telegram stops delivering to him (he blocked the bot, or the chat is gone); "
            "cleared when he writes to the bot again."
        ),
    )
    phone = models.CharField(verbose_name=_("phone"), max_length=32, null=True, blank=True, unique=True)
    sms_opted_out = models.BooleanField(
        verbose_name=_("SMS opted out"),
        default=False,
        help_text=_(
            "Set when he texts STOP or the number can't be texted; cleared when he texts START or links a number."
        ),
    )
    terminal_user = models.CharField(verbose_name=_("terminal user"), max_length=64, null=True, blank=True, unique=True)
    notify_by = models.CharField(
        verbose_name=_("notify by"), max_length=10, choices=Notify.choices, default=Notify.AUTO
    )
    last_channel = models.CharField(verbose_name=_("last channel"), max_length=10, blank=True)
    tables_explained = models.BooleanField(
        verbose_name=_("tables explained"), default=False, help_text=_("Set once he has been told how to read a table.")
    )
    sms_refused_last = models.BooleanField(
        verbose_name=_("last text refused"),
        default=False,
        help_text=_("His last text was refused: the move that ends his next turn is answered all the same."),
    )
    advises = models.BooleanField(
        verbose_name=_("advises"),
        default=True,
        help_text=_(
            "If set, as the sitter he gets the captain's cards to advise on; "
            "he changes it with advise on or advise off."
        ),
    )
    is_computer = models.BooleanField(verbose_name=_("computer player"), default=False)
    strength = models.CharField(verbose_name=_("strength"), max_length=10, choices=Strength.choices, blank=True)
    banned = models.BooleanField(verbose_name=_("banned"), default=False)
    ban_reason = models.TextField(verbose_name=_("ban reason"), blank=True)
    ban_expires_at = models.DateTimeField(
        verbose_name=_("ban expires at"), null=True, blank=True, help_text=_("Empty: until unbanned.")
    )
    merged_into = models.ForeignKey(
        "self",
        verbose_name=_("merged into"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="merged",
        help_text=_("The player whose number this was: he linked it. Kept so that the log still names who acted."),
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)
    time_zone = models.CharField(
        verbose_name=_("time zone"),
        max_length=64,
        default="UTC",
        help_text=_("Deadlines are shown in it, and quiet hours kept in it."),
    )
    time_zone_set = models.BooleanField(
        verbose_name=_("time zone set"),
        default=False,
        help_text=_(
            "Set once he named his zone (tz) or a device of his reported it; "
            "until then it may be taken from his device."
        ),
    )
    quiet_from = models.PositiveSmallIntegerField(
        verbose_name=_("quiet from"),
        null=True,
        blank=True,
        help_text=_("Quiet hours start at this hour of his day (0-23)."),
    )
    quiet_until = models.PositiveSmallIntegerField(
        verbose_name=_("quiet until"), null=True, blank=True, help_text=_("Quiet hours end at this hour.")
    )
    awake_until = models.DateTimeField(
        verbose_name=_("awake until"),
        null=True,
        blank=True,
        help_text=_("He wrote in his quiet hours: until then what the game sends him comes at once, without a sound."),
    )
    away_until = models.DateTimeField(
        verbose_name=pgettext_lazy("label of a player field on the moderation desk", "away until"),
        null=True,
        blank=True,
        help_text=_("Time off: his clocks wait until then."),
    )

    class Meta:
        ordering = ["display_name", "pk"]
        verbose_name = _("player")
        verbose_name_plural = _("players")
        # A name on a table or the scoreboard says which player it is, whatever its case
        # (PostgreSQL folds every script's case; SQLite's lower() folds ASCII only).
        constraints = [
            models.UniqueConstraint(
                Lower("display_name"),
                name="player_name_unique",
                violation_error_message=_("Another player has this name."),
            )
        ]

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

    player = models.ForeignKey(Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="phone_links")
    phone = models.CharField(verbose_name=_("phone"), max_length=32, db_index=True)
    code_hash = models.CharField(verbose_name=_("code hash"), max_length=64)
    expires_at = models.DateTimeField(verbose_name=_("expires at"))
    tries = models.PositiveSmallIntegerField(
        verbose_name=_("tries"), default=0, help_text=_("Wrong codes texted from the phone.")
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("phone link")
        verbose_name_plural = _("phone links")

    def __str__(self) -> str:
        return f"{self.player} {self.phone}"


class SignInLink(models.Model):
    """A personal link that signs a player in on one device (the ``web`` command), so
    that a player of any channel can play at his table in a browser.

    Single use and short lived; only a keyed hash of its token is stored, so neither
    the database nor the desk shows a link that still works. The browser it signed in
    keeps the link's id in its session: revoking the link signs that browser out.
    """

    player = models.ForeignKey(Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="sign_in_links")
    token_hash = models.CharField(verbose_name=_("token hash"), max_length=64, unique=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)
    expires_at = models.DateTimeField(
        verbose_name=_("expires at"), help_text=_("Unused after this, it signs nobody in.")
    )
    used_at = models.DateTimeField(
        verbose_name=_("used at"), null=True, blank=True, help_text=_("When it signed a browser in; it works once.")
    )
    revoked_at = models.DateTimeField(
        verbose_name=_("revoked at"),
        null=True,
        blank=True,
        help_text=_(
            "Revoked from the desk, or replaced by a newer link: "
            "it signs nobody in, and signs out the browser it signed in."
        ),
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("sign-in link")
        verbose_name_plural = _("sign-in links")

    def __str__(self) -> str:
        return f"{self.player} {self.created_at:%Y-%m-%d %H:%M}"


class Match(models.Model):
    """A game of three players to the target score."""

    class Status(models.TextChoices):
        LOBBY = "lobby", _("waiting for players")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    code = models.CharField(verbose_name=_("code"), max_length=8, unique=True)
    status = models.CharField(
        verbose_name=_("status"), max_length=10, choices=Status.choices, default=Status.LOBBY, db_index=True
    )
    # The options (games.contract.options): one column each, named as the option.
    gin_bonus = models.PositiveSmallIntegerField(verbose_name=_("gin bonus"), default=DEFAULTS.gin_bonus)
    undercut_bonus = models.PositiveSmallIntegerField(verbose_name=_("undercut bonus"), default=DEFAULTS.undercut_bonus)
    target = models.PositiveSmallIntegerField(verbose_name=_("target"), default=DEFAULTS.target)
    may_discard_taken = models.BooleanField(
        verbose_name=_("may discard the card taken from the pile"), default=DEFAULTS.may_discard_taken
    )
    move_seconds = models.PositiveIntegerField(verbose_name=_("move seconds"), default=DEFAULTS.move_seconds)
    deadline = models.DateTimeField(
        verbose_name=_("deadline"),
        null=True,
        blank=True,
        help_text=_("When the turn's time runs out; the clock scan acts then."),
    )
    remind_at = models.DateTimeField(
        verbose_name=_("remind at"),
        null=True,
        blank=True,
        help_text=_("When the player to move is reminded; empty once he was."),
    )
    paused_at = models.DateTimeField(verbose_name=_("paused at"), null=True, blank=True)
    paused_remaining = models.DurationField(verbose_name=_("time left when paused"), null=True, blank=True)
    version = models.PositiveIntegerField(verbose_name=_("version"), default=0)
    event_count = models.PositiveIntegerField(
        verbose_name=_("event count"), default=0, help_text=_("The number in the log of the match's last event.")
    )
    current_hand = models.ForeignKey(
        "Hand", verbose_name=_("current hand"), null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    turn_seat = models.PositiveSmallIntegerField(
        verbose_name=_("seat to move"), null=True, blank=True, help_text=_("Seat position of the player to move.")
    )
    created_by = models.ForeignKey(
        Player, verbose_name=_("created by"), null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    winner = models.ForeignKey(
        Player, verbose_name=_("winner"), null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    telegram_group_chat_id = models.BigIntegerField(
        verbose_name=_("Telegram group chat ID"),
        null=True,
        blank=True,
        help_text=_("A Telegram group that follows the public table and the results."),
    )
    group_language = models.CharField(
        verbose_name=_("group language"), max_length=8, choices=LANGUAGE_CHOICES, default="en"
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)
    started_at = models.DateTimeField(verbose_name=_("started at"), null=True, blank=True)
    last_move_at = models.DateTimeField(verbose_name=_("last move at"), null=True, blank=True)
    finished_at = models.DateTimeField(verbose_name=_("finished at"), null=True, blank=True)
    is_open = models.BooleanField(
        verbose_name=_("open"),
        default=DEFAULTS.is_open,
        db_index=True,
        help_text=_("If set, it is listed in the public lobby for anyone to join."),
    )
    rematch_of = models.ForeignKey(
        "self",
        verbose_name=_("rematch of"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rematches",
        help_text=_("The match its players agreed to play again."),
    )
    rematch_until = models.DateTimeField(
        verbose_name=_("rematch until"),
        null=True,
        blank=True,
        help_text=_("When the offer to play it again lapses; set by the first again, empty once settled."),
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        indexes = [
            # The clock scan's (clock_scan.next_due): the matches of a status whose
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
    def options(self) -> MatchOptions:
        """Every option of the match, from its columns."""
        return MatchOptions(**{name: getattr(self, name) for name in DEFAULTS.as_fields()})

    @property
    def rules(self) -> Options:
        """The options its hands are played by."""
        return self.options.rules()

    @property
    def is_paused(self) -> bool:
        return self.paused_at is not None


class Seat(models.Model):
    """A player's place in a match, with his running score."""

    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, verbose_name=_("player"), on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField(verbose_name=_("position"))
    score = models.IntegerField(verbose_name=_("score"), default=0)
    timeouts_in_row = models.PositiveSmallIntegerField(verbose_name=_("timeouts in a row"), default=0)
    autopilot = models.BooleanField(
        verbose_name=_("autopilot"), default=False, help_text=_("A computer player plays for him.")
    )

    class Meta:
        ordering = ["position"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="one_player_per_position"),
            models.UniqueConstraint(fields=["match", "player"], name="one_seat_per_player"),
        ]

    def __str__(self) -> str:
        return _("%(player)s in %(match)s") % {"player": self.player, "match": self.match}


class Hand(models.Model):
    """One deal: its roles, its secret deck (with a public commitment) and its result."""

    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField(verbose_name=_("number"))
    box = models.PositiveSmallIntegerField(verbose_name=_("box"), help_text=_("Seat position of the box."))
    captain = models.PositiveSmallIntegerField(verbose_name=_("captain"))
    sitter = models.PositiveSmallIntegerField(verbose_name=_("sitter"))
    deck = models.TextField(verbose_name=_("deck"), help_text=_("The shuffled order; secret until the hand ends."))
    salt = models.CharField(verbose_name=_("salt"), max_length=64)
    commitment = models.CharField(
        verbose_name=_("commitment"), max_length=64, help_text=_("SHA-256 of the salt and the deck.")
    )
    suggestion = models.CharField(verbose_name=_("suggestion"), max_length=64, blank=True)
    suggestion_version = models.PositiveIntegerField(verbose_name=_("suggestion version"), null=True, blank=True)
    result = models.CharField(verbose_name=_("result"), max_length=10, blank=True)
    winner = models.PositiveSmallIntegerField(verbose_name=_("winner"), null=True, blank=True)
    points = models.PositiveSmallIntegerField(verbose_name=_("points"), default=0)
    summary = models.JSONField(
        verbose_name=_("summary"), default=dict, blank=True, help_text=_("Arrangements and layoffs.")
    )
    started_at = models.DateTimeField(verbose_name=_("started at"), default=timezone.now)
    ended_at = models.DateTimeField(verbose_name=_("ended at"), null=True, blank=True)
    review = models.JSONField(
        verbose_name=_("review"),
        null=True,
        blank=True,
        help_text=_("The moves of people where the hard level would have played otherwise, once the hand ended."),
    )
    # Who played it, as dealt, and who earned its points: a seat may change hands
    # later (an admin's replacement) without rewriting the hands before.
    box_player = models.ForeignKey(
        Player, verbose_name=_("box player"), null=True, on_delete=models.PROTECT, related_name="+"
    )
    captain_player = models.ForeignKey(
        Player, verbose_name=_("captain player"), null=True, on_delete=models.PROTECT, related_name="+"
    )
    sitter_player = models.ForeignKey(
        Player, verbose_name=_("sitter player"), null=True, on_delete=models.PROTECT, related_name="+"
    )
    winner_player = models.ForeignKey(
        Player,
        verbose_name=_("winner player"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("Who scored it."),
    )

    class Meta:
        ordering = ["match", "number"]
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="one_hand_per_number")]

    def __str__(self) -> str:
        return _("%(match)s hand %(number)s") % {"match": self.match, "number": self.number}

    @property
    def is_over(self) -> bool:
        return self.ended_at is not None

    @property
    def roles(self) -> Roles:
        """Which seat held each role in this hand, as dealt (R3.1)."""
        return Roles(box=self.box, captain=self.captain, sitter=self.sitter)


class AppendOnlyError(Exception):
    """The event log is never rewritten."""


class Event(models.Model):
    """One entry of a match's append-only log, ordered by ``seq`` within its match.

    Append-only twice over: here in Python, and in the database, whose
    triggers refuse every UPDATE and DELETE of a row (migration
    ``event_log_append_only``). Nothing it points to is ever deleted either:
    a match, a hand or a player who acted is protected."""

    class Kind(models.TextChoices):
        """What an event records; its ``data`` depends on it."""

        CREATED = "created"  # the options (games.contract.options), and rematch_of
        JOINED = "joined"
        LEFT = "left"
        CUT = "cut"  # the cut for roles (R3.3)
        DEAL = "deal"  # a hand dealt: its roles and the deck's commitment
        MOVE = "move"  # a move of the hand: the action, its seat and role, how it was made
        SUGGESTION = "suggestion"  # the sitter's advice (R3.2), hidden from the desk while the hand runs
        TEAM = "team"  # a word between captain and sitter
        HAND_OVER = "hand_over"  # the hand's result, the scores, the deck and salt revealed
        MATCH_OVER = "match_over"
        RESIGNED = "resigned"
        ADMIN = "admin"  # a moderator's action and reason
        RETURNED = "returned"  # a player takes his seat back from the computer
        AWAY = "away"
        BACK = "back"
        AGAIN = "again"  # a player agrees to a rematch
        AGAIN_LAPSED = "again_lapsed"
        REMATCH = "rematch"  # the rematch's code, on the old match
        BOT_OFFERED = "bot_offered"  # the lobby offered a computer player
        GROUP_LINKED = "group_linked"

    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField(verbose_name=_("number in the match's log"))
    hand = models.ForeignKey(
        Hand, verbose_name=_("hand"), null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    kind = models.CharField(verbose_name=_("kind"), max_length=20)
    actor = models.ForeignKey(
        Player, verbose_name=_("actor"), null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    data = models.JSONField(verbose_name=_("data"), default=dict, blank=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)

    class Meta:
        ordering = ["match", "seq"]
        verbose_name = _("event")
        verbose_name_plural = _("events")
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
        DELIVERED = "delivered", _("delivered")  # the carrier said so (an SMS's status callback)
        FAILED = "failed", _("failed")
        SUPERSEDED = "superseded", _("not sent: a newer table replaced it")

    class Channel(models.TextChoices):
        TELEGRAM = "telegram", _("Telegram")
        SMS = "sms", _("SMS")
        TERMINAL = "terminal", _("terminal")

    class Kind(models.TextChoices):
        """What a message is, which delivery and the channels act on (a table replaces an
        older one, a turn notifies, team talk waits behind the game)."""

        REPLY = "reply"  # the answer to its reader's own command
        DEAL = "deal"  # his cards at a deal
        TURN = "turn"  # his turn, with his cards and moves
        ADVISE = "advise"  # the sitter's table at his captain's turn
        MOVED = "moved"  # a move made for him (a timeout, a computer playing his seat)
        SUGGESTION = "suggestion"  # the captain's table with the sitter's suggestion
        RESULT = "result"  # a hand's end
        CUT = "cut"
        JOINED = "joined"
        LEFT = "left"
        OVER = "over"  # a match ended without being played out (resigned, closed)
        ADMIN = "admin"  # a moderator's action
        AUTOPILOT = "autopilot"  # a computer plays a seat
        UNREACHABLE = "unreachable"
        RETURNED = "returned"
        AWAY = "away"  # time off, or back from it
        AGAIN = "again"  # a rematch offered, agreed, started or lapsed
        LOBBY = "lobby"  # the lobby offers a computer player
        REMINDER = "reminder"  # dropped if the turn it was about has moved on
        TEAM = "team"  # sent when nothing of the game waits for the address
        LEGEND = "legend"  # how to read a table, by SMS a text of its own
        LINKED = "linked"
        LINK_CODE = "link-code"  # a phone's one-time code: the desk never shows it
        SMS_FAILED = "sms-failed"  # a text to his phone did not arrive: told on Telegram
        SIGN_IN_LINK = "sign-in-link"  # a personal link that signs a browser in: the desk never shows it
        GROUP = "group"  # to a group: its link to a match
        TABLE = "table"  # to a group: the public table
        POINTER = "pointer"  # to a group: play in the private chat

    recipient = models.ForeignKey(
        Player, verbose_name=_("recipient"), null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    match = models.ForeignKey(
        Match, verbose_name=_("match"), null=True, blank=True, on_delete=models.CASCADE, related_name="outbox"
    )
    channel = models.CharField(verbose_name=_("channel"), max_length=10, choices=Channel.choices)
    address = models.CharField(verbose_name=_("address"), max_length=64)
    kind = models.CharField(verbose_name=_("kind"), max_length=20)
    text = models.TextField(verbose_name=_("text"))
    buttons = models.JSONField(verbose_name=_("buttons"), default=list, blank=True)
    silent = models.BooleanField(
        verbose_name=_("silent"),
        default=False,
        help_text=_("Sent without a sound where the platform allows it: it asks nothing of its reader."),
    )
    replaces = models.CharField(
        verbose_name=_("replaces"),
        max_length=40,
        blank=True,
        help_text=_("Messages with the same key may be edited in place."),
    )
    # How long its match's log was when it was written: a table shows its reader the moves
    # after the last table he got (``announcements.unseen_moves``).
    event_count = models.PositiveIntegerField(verbose_name=_("number in the match's log"), null=True, blank=True)
    status = models.CharField(
        verbose_name=_("status"), max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    attempts = models.PositiveSmallIntegerField(verbose_name=_("attempts"), default=0)
    last_error = models.TextField(verbose_name=_("last error"), blank=True)
    next_attempt_at = models.DateTimeField(verbose_name=_("next attempt at"), default=timezone.now)
    external_id = models.CharField(verbose_name=_("external ID"), max_length=64, blank=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)
    sent_at = models.DateTimeField(verbose_name=_("sent at"), null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        verbose_name = _("outgoing message")
        verbose_name_plural = _("outgoing messages")
        indexes = [
            models.Index(fields=["status", "next_attempt_at"]),
            models.Index(fields=["channel", "address", "status"], name="outbox_address_unfinished"),
            # Twilio's status callbacks name a message by its SID (bot/sms_status.py).
            models.Index(fields=["external_id"], condition=Q(channel="sms"), name="outbox_sms_sid"),
        ]

    def __str__(self) -> str:
        return _("%(kind)s to %(address)s (%(status)s)") % {
            "kind": self.kind,
            "address": self.address,
            "status": self.get_status_display(),
        }


class ProcessedUpdate(models.Model):
    """An inbound update (a Telegram update_id, an SMS sid) already acted on,
    written in the same transaction as its effect so that a retry does nothing."""

    key = models.CharField(verbose_name=_("key"), max_length=80, unique=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("processed update")
        verbose_name_plural = _("processed updates")

    def __str__(self) -> str:
        return self.key


# Records and ratings: kept by games.services.write.records and games.services.write.ratings in
# the transaction that finishes each hand and match, so that no page ever adds
# them up; ``manage.py recomputerecords`` rebuilds them from the log and the hands.

INITIAL_MU = 25.0
INITIAL_SIGMA = INITIAL_MU / 3


class PlayerRecord(models.Model):
    """A player's totals over finished matches, and his rating."""

    player = models.OneToOneField(
        Player, verbose_name=_("player"), primary_key=True, on_delete=models.CASCADE, related_name="record"
    )
    is_computer = models.BooleanField(verbose_name=_("computer player"), default=False)
    search_name = models.CharField(
        verbose_name=_("search name"), max_length=64, help_text=_("The name case-folded, for search by its start.")
    )
    matches = models.PositiveIntegerField(verbose_name=_("matches"), default=0)
    wins = models.PositiveIntegerField(verbose_name=_("wins"), default=0)
    points = models.PositiveIntegerField(
        verbose_name=_("points"), default=0, help_text=_("Points he scored himself, hand by hand.")
    )
    hands_won_box = models.PositiveIntegerField(verbose_name=_("hands won as box"), default=0)
    hands_won_captain = models.PositiveIntegerField(verbose_name=_("hands won as captain"), default=0)
    knocks = models.PositiveIntegerField(
        verbose_name=_("knocks"), default=0, help_text=_("Hands won by knocking (not gin).")
    )
    gins = models.PositiveIntegerField(verbose_name=_("gins"), default=0)
    undercuts = models.PositiveIntegerField(
        verbose_name=_("undercuts"), default=0, help_text=_("Hands won by undercutting the knocker.")
    )
    mu = models.FloatField(verbose_name=_("rating mean (mu)"), default=INITIAL_MU)
    sigma = models.FloatField(verbose_name=_("rating uncertainty (sigma)"), default=INITIAL_SIGMA)
    rating = models.IntegerField(
        verbose_name=_("rating"), default=1000, help_text=_("What the pages show: a cautious estimate.")
    )
    last_played = models.DateField(verbose_name=_("last played"), null=True, blank=True)

    class Meta:
        verbose_name = _("player record")
        verbose_name_plural = _("player records")
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

    player = models.ForeignKey(Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="+")
    day = models.DateField(verbose_name=_("day"))
    matches = models.PositiveIntegerField(verbose_name=_("matches"), default=0)
    wins = models.PositiveIntegerField(verbose_name=_("wins"), default=0)
    points = models.PositiveIntegerField(verbose_name=_("points"), default=0)
    hands_won = models.PositiveIntegerField(verbose_name=_("hands won"), default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "day"], name="one_day_row_per_player")]
        verbose_name = _("player's day")
        verbose_name_plural = _("players' days")

    def __str__(self) -> str:
        return f"{self.player_id} {self.day}"


class PlayerMatch(models.Model):
    """A finished match as one of its players played it: his own points (which
    stay his if his seat changed hands) and what it did to his rating."""

    player = models.ForeignKey(Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="+")
    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="+")
    finished_at = models.DateTimeField(verbose_name=_("finished at"))
    won = models.BooleanField(verbose_name=_("won"), default=False)
    points = models.PositiveIntegerField(verbose_name=_("points"), default=0)
    rating_before = models.IntegerField(verbose_name=_("rating before"), null=True, blank=True)
    rating_after = models.IntegerField(
        verbose_name=_("rating after"), null=True, blank=True, help_text=_("Empty: not rated (he left the seat).")
    )
    left = models.BooleanField(
        verbose_name=_("left"),
        default=False,
        help_text=_(
            "He did not hold his seat at the end (a moderator gave it to a computer player): "
            "the match counts neither as his win nor as his loss."
        ),
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "player"], name="one_result_per_player")]
        verbose_name = _("player's match")
        verbose_name_plural = _("players' matches")
        indexes = [models.Index(fields=["player", "-finished_at", "-match"], name="player_match_recent")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.match_id}"


class HeadToHead(models.Model):
    """How often ``player`` met ``opponent`` in finished matches, and who won."""

    player = models.ForeignKey(Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="+")
    opponent = models.ForeignKey(Player, verbose_name=_("opponent"), on_delete=models.CASCADE, related_name="+")
    matches = models.PositiveIntegerField(verbose_name=_("matches"), default=0)
    wins = models.PositiveIntegerField(verbose_name=_("wins"), default=0)
    losses = models.PositiveIntegerField(verbose_name=_("losses"), default=0, help_text=_("Matches the opponent won."))

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "opponent"], name="one_row_per_pair")]
        verbose_name = _("head-to-head record")
        verbose_name_plural = _("head-to-head records")
        indexes = [models.Index(fields=["player", "-matches", "opponent"], name="head_to_head_most")]

    def __str__(self) -> str:
        return f"{self.player_id} v {self.opponent_id}"


class TimeOff(models.Model):
    """A player's time off (``away``): his clocks wait from ``started_at`` to ``ended_at``.
    The periods count against his yearly allowance (``GIN3_AWAY_DAYS_PER_YEAR``)."""

    player = models.ForeignKey(Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="time_off")
    started_at = models.DateTimeField(verbose_name=_("started at"), default=timezone.now)
    ended_at = models.DateTimeField(
        verbose_name=_("ended at"), help_text=_("As planned, or when he came back if that was earlier.")
    )

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [models.Index(fields=["player", "started_at"], name="time_off_of_player")]
        verbose_name = _("time off")
        verbose_name_plural = _("time off")

    def __str__(self) -> str:
        return f"{self.player} {self.started_at:%Y-%m-%d} - {self.ended_at:%Y-%m-%d}"


class Report(models.Model):
    """A player's word to the moderators about a match (``report TEXT``). A match with
    a report has its team chat open to the moderation desk (``desk.event_text``)."""

    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        Player, verbose_name=_("reporter"), null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    text = models.TextField(verbose_name=_("text"))
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)
    handled = models.BooleanField(verbose_name=_("handled"), default=False, db_index=True)

    class Meta:
        ordering = ["handled", "created_at", "pk"]
        verbose_name = _("report")
        verbose_name_plural = _("reports")

    def __str__(self) -> str:
        return f"{self.match} {self.created_at:%Y-%m-%d %H:%M}"


class Heartbeat(models.Model):
    """A background process's sign of life, a row it refreshes every few seconds
    (games/heartbeat.py): ``manage.py heartbeats`` and the metrics read it."""

    process = models.CharField(verbose_name=_("process"), max_length=200, primary_key=True)
    queues = models.CharField(verbose_name=_("queues"), max_length=200, blank=True)
    seen_at = models.DateTimeField(verbose_name=_("seen at"))

    class Meta:
        verbose_name = _("heartbeat")
        verbose_name_plural = _("heartbeats")

    def __str__(self) -> str:
        return self.process
