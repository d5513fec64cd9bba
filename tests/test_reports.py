"""Reports to the moderators: ``report TEXT``, the desk's queue, and the team chat it opens.

Why: a player abused in a match needs a way to say so that reaches a person;
the moderator then needs to read what the team said, which the desk must not
show otherwise while the match runs: team talk names the cards of a hand in
play ("keep the 7h"), and view-only staff may be anybody.
"""

from __future__ import annotations

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.urls import reverse
from django.utils.html import escape

from games.admin.base import event_words
from games.contract.advice import AdviceReason
from games.engine import Role
from games.models import Event, Match, Report
from games.services import handle
from games.services.plumbing import state
from games.services.plumbing.change import change
from games.services.read.desk import HIDDEN, event_text
from games.services.write import moderation
from games.text.sentences import sentence
from tests.conftest import player_in_role, snapshot

SECRET = "keep the 7h and the 8h, they make a run"


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw"))
    return client


@pytest.fixture
def talked(match3) -> Match:
    """A running match whose captain told his sitter two of his cards."""
    handle(player_in_role(match3, Role.CAPTAIN), f"team {SECRET}", "terminal")
    return match3


def team_event(match: Match) -> Event:
    (event,) = Event.objects.filter(match=match, kind="team").select_related("match", "hand")
    return event


# report -----------------------------------------------------------------------------------


def test_report_files_the_players_words_and_thanks_him(match3, alice):
    before = snapshot(match3)
    reply = handle(alice, "report Bob calls me names in team chat", "terminal")
    assert reply == f"Thank you: the moderators got your report on #{match3.code} and will look into it."
    (report,) = Report.objects.all()
    assert (report.match, report.reporter, report.text, report.handled) == (
        match3,
        alice,
        "Bob calls me names in team chat",
        False,
    )
    assert snapshot(match3) == before  # no move, no new version


def test_report_without_words_asks_for_them(alice, match3):
    assert handle(alice, "report", "terminal") == "Say what happened, for the moderators: report TEXT"
    assert not Report.objects.exists()


def test_report_names_the_match_when_he_is_in_several(alice, bob, carol, match3):
    handle(alice, "new", "terminal")
    assert handle(alice, "report rude", "terminal").startswith("Which match? Put its code first")
    assert handle(alice, f"#{match3.code} report rude", "terminal").startswith("Thank you")
    assert Report.objects.get().match == match3


def test_report_after_the_end_goes_to_the_match_he_finished_last(alice, match3):
    moderation.adjudicate(match3, 0, "root")
    handle(alice, "report they cheated", "terminal")
    assert Report.objects.get().match == match3


def test_report_by_a_player_whose_seat_a_computer_plays_leaves_it_to_the_computer(alice, match3):
    match3.seats.filter(player=alice).update(autopilot=True)
    handle(alice, "report rude", "terminal")
    assert match3.seats.get(player=alice).autopilot


def test_a_player_has_a_few_reports_of_a_match_waiting_at_most(alice, match3):
    for number in range(3):
        handle(alice, f"report number {number}", "terminal")
    assert handle(alice, "report once more", "terminal") == (
        f"Your reports on #{match3.code} wait for a moderator already; they will read them."
    )
    assert Report.objects.count() == 3


# The team chat ----------------------------------------------------------------------------------


def test_team_talk_is_logged_and_hidden_from_the_desk_while_the_match_runs(talked):
    event = team_event(talked)
    assert event.data["text"] == SECRET
    assert event_text(event) == f"text: {HIDDEN}"


def test_a_report_opens_the_team_chat_to_the_desk(talked, alice):
    handle(alice, "report the team talks about cards", "terminal")
    assert event_text(team_event(talked)) == f"text: {SECRET}"


def test_the_team_chat_is_open_to_the_desk_once_the_match_is_over(talked):
    moderation.abort(talked, "root")
    assert event_text(team_event(talked)) == f"text: {SECRET}"


def test_the_match_page_of_the_desk_shows_team_talk_only_after_a_report(admin_client, talked, alice):
    page = reverse("admin:games_match_change", args=[talked.pk])
    assert SECRET not in admin_client.get(page).content.decode()
    assert SECRET not in admin_client.get(reverse("admin:games_event_changelist")).content.decode()
    handle(alice, "report rude", "terminal")
    assert SECRET in admin_client.get(page).content.decode()


def test_the_desk_words_a_computer_partners_team_talk_as_its_partner_read_it(admin_client, match3, alice):
    """helper-36: the report page showed "advice: AdviceReason, move: pass, reason: top_card_no_help, card:"."""
    sitter = player_in_role(match3, Role.SITTER)
    hand_row = match3.hands.get()
    said = {"move": "discard 9c", "reason": "avoids_feeding", "card": "Kh"}
    with change():
        state.append_event(match3, Event.Kind.TEAM, hand_row, sitter, advice="AdviceReason", **said)
    event = Event.objects.get(match=match3, kind="team")
    hidden = {"advice: AdviceReason", f"move: {HIDDEN}", f"reason: {HIDDEN}", f"card: {HIDDEN}"}
    assert event_words(event) == event_text(event)
    assert set(event_text(event).split(", ")) == hidden  # in the order the database keeps the keys
    handle(alice, "report rude", "terminal")
    words = sentence(AdviceReason(match3.code, sitter.display_name, **said))
    assert event_words(Event.objects.get(pk=event.pk)) == words
    page = admin_client.get(reverse("admin:games_report_change", args=[Report.objects.get().pk])).content.decode()
    assert escape(words) in page and "AdviceReason" not in page


# The queue ---------------------------------------------------------------------------------------


def test_the_desk_lists_the_reports_waiting_first_with_the_match_and_the_words(admin_client, talked, alice, bob):
    handle(alice, "report first", "terminal")
    handle(bob, "report second", "terminal")
    Report.objects.filter(text="first").update(handled=True)
    listing = admin_client.get(reverse("admin:games_report_changelist")).content.decode()
    assert listing.index("second") < listing.index("first")
    assert reverse("admin:games_match_change", args=[talked.pk]) in listing


def test_the_report_page_shows_the_team_chat_of_its_match(admin_client, talked, alice):
    handle(alice, "report rude", "terminal")
    page = admin_client.get(reverse("admin:games_report_change", args=[Report.objects.get().pk]))
    assert page.status_code == 200
    assert SECRET in page.content.decode()
    assert "rude" in page.content.decode()


def test_a_moderator_marks_reports_as_handled_and_it_is_logged(admin_client, talked, alice):
    handle(alice, "report rude", "terminal")
    report = Report.objects.get()
    admin_client.post(
        reverse("admin:games_report_changelist"), {"action": "mark_handled", "_selected_action": [report.pk]}
    )
    report.refresh_from_db()
    assert report.handled
    assert LogEntry.objects.get(object_id=str(report.pk), action_flag=CHANGE).change_message == "handled"


def test_a_report_is_not_added_or_changed_by_hand(admin_client, talked, alice):
    handle(alice, "report rude", "terminal")
    report = Report.objects.get()
    assert admin_client.get(reverse("admin:games_report_add")).status_code == 403
    admin_client.post(reverse("admin:games_report_change", args=[report.pk]), {"text": "changed"})
    report.refresh_from_db()
    assert report.text == "rude"
