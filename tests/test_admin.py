"""The moderation desk: every admin action through the admin's own HTTP views.

Each action must go through ``games.services.write.moderation``: the match's log gets
an "admin" event, Django's admin log a LogEntry, the players a message, and the
match a new version (so that old buttons are refused).
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from games.admin.outbox import OutboxAdmin
from games.contract.moderation import EmptyExtension, SeatIsComputer
from games.models import Event, Match, Outbox, Player
from games.services import ServiceError, handle
from games.services.plumbing import state
from games.services.plumbing.change import change
from games.services.write import clock_scan, computer_moves, moderation
from games.services.write.locked_table import load_table
from games.services.write.players import telegram_player, terminal_player
from tests.conftest import engine_hand, refresh


@pytest.fixture(autouse=True)
def background_off(settings):
    settings.GIN3_BACKGROUND = "off"


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw"))
    return client


@pytest.fixture
def ann(db) -> Player:
    return terminal_player("ann", "Ann")


@pytest.fixture
def match(ann) -> Match:
    """A running match of Ann and two computer players."""
    handle(ann, "new", "terminal")
    handle(ann, "bot", "terminal")
    handle(ann, "bot", "terminal")
    return Match.objects.get(seats__player=ann, status=Match.Status.RUNNING)


def act(client, model: str, action: str, objects: list, **fields: object):
    """Submit an admin action's intermediate form, as the Confirm button does."""
    data = {"action": action, "_selected_action": [obj.pk for obj in objects], "apply": "1", **fields}
    return client.post(reverse(f"admin:games_{model}_changelist"), data)


def admin_events(match: Match, action: str) -> list[Event]:
    return list(match.events.filter(kind="admin", data__action=action))


def logged(obj: object) -> LogEntry:
    return LogEntry.objects.get(object_id=str(obj.pk), action_flag=CHANGE)


def told(player: Player) -> list[str]:
    return list(Outbox.objects.filter(recipient=player, kind="admin").values_list("text", flat=True))


def until_to_move(match: Match, player: Player) -> Match:
    """Let the computer players move until it is ``player``'s turn."""
    position = match.seats.get(player=player).position
    while Match.objects.get(pk=match.pk).turn_seat != position:
        assert computer_moves.play_computer_move(match.pk)
    return Match.objects.get(pk=match.pk)


def test_an_action_asks_first_on_an_intermediate_page(admin_client, match):
    url = reverse("admin:games_match_changelist")
    response = admin_client.post(url, {"action": "abort", "_selected_action": [match.pk]})
    assert response.status_code == 200
    assert b'name="reason"' in response.content
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING


def test_abort(admin_client, match, ann):
    response = act(admin_client, "match", "abort", [match], reason="cheating suspected")
    assert response.status_code == 302
    after = Match.objects.get(pk=match.pk)
    assert after.status == Match.Status.ABORTED
    assert after.version > match.version
    assert admin_events(match, "abort")[0].data["admin"] == "root"
    assert "cheating suspected" in logged(match).get_change_message()
    assert any("aborted" in text and "cheating suspected" in text for text in told(ann))


def test_abort_needs_a_reason(admin_client, match):
    response = act(admin_client, "match", "abort", [match], reason="")
    assert response.status_code == 200  # the form again, with its error
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING


def test_adjudicate_gives_the_match_to_the_chosen_seat(admin_client, match, ann):
    seat = match.seats.get(player=ann)
    act(admin_client, "match", "adjudicate", [match], seat=seat.position, reason="opponents left")
    after = Match.objects.get(pk=match.pk)
    assert after.status == Match.Status.FINISHED
    assert after.winner == ann
    assert after.version > match.version
    assert admin_events(match, "adjudicate")[0].data["winner"] == ann.pk
    assert "Adjudicated: Ann wins" in logged(match).get_change_message()
    assert any("Ann wins the match" in text for text in told(ann))


def test_pause_then_resume_restores_the_deadline(admin_client, match, ann):
    deadline = match.deadline
    act(admin_client, "match", "pause", [match])
    paused = Match.objects.get(pk=match.pk)
    assert paused.is_paused and paused.deadline is None
    assert paused.version > match.version
    act(admin_client, "match", "resume", [match], reason="back")
    resumed = Match.objects.get(pk=match.pk)
    assert not resumed.is_paused
    assert abs(resumed.deadline - deadline) < timedelta(seconds=5)
    assert resumed.version > paused.version
    assert admin_events(match, "pause") and admin_events(match, "resume")
    assert LogEntry.objects.filter(object_id=str(match.pk)).count() == 2
    assert len(told(ann)) == 2


def test_a_paused_clock_is_not_enforced(admin_client, match):
    act(admin_client, "match", "pause", [match])
    assert refresh(match).deadline is None
    assert clock_scan.scan_clocks(now=timezone.now() + timedelta(days=30)) == {
        "deadline": 0,
        "remind_at": 0,
        "lobby": 0,
        "rematch": 0,
    }


def test_a_paused_match_holds_its_computer_players_until_resumed(admin_client, match, ann):
    """Moderation: while an admin looks into a match, nothing plays by itself."""
    match = until_to_move(match, ann)
    handle(ann, str(computer_moves.safe_move(engine_hand(match))), "terminal")
    if Match.objects.get(pk=match.pk).turn_seat == match.seats.get(player=ann).position:
        handle(ann, str(computer_moves.safe_move(engine_hand(match))), "terminal")
    act(admin_client, "match", "pause", [match])
    assert not computer_moves.play_computer_move(match.pk)
    act(admin_client, "match", "resume", [match], reason="all clear")
    assert computer_moves.play_computer_move(match.pk)


def test_extend_moves_the_deadline(admin_client, match, ann):
    match = until_to_move(match, ann)  # a computer player to move moves at once, extended or not
    act(admin_client, "match", "extend", [match], hours="12", reason="holiday")
    after = Match.objects.get(pk=match.pk)
    assert after.deadline - match.deadline == timedelta(hours=12)
    assert after.version > match.version
    assert admin_events(match, "extend")[0].data["seconds"] == 12 * 3600
    assert "12 hours" in logged(match).get_change_message()
    assert any("12 more hours" in text for text in told(ann))


def test_replace_with_a_computer_player_who_then_moves(admin_client, match, ann):
    match = until_to_move(match, ann)
    position = match.seats.get(player=ann).position
    act(admin_client, "match", "replace_with_computer", [match], seat=position, strength="easy", reason="gone")
    seat = Match.objects.get(pk=match.pk).seats.get(position=position)
    assert seat.player.is_computer and seat.player.strength == "easy"
    assert Match.objects.get(pk=match.pk).version > match.version
    assert admin_events(match, "replace")[0].data["replaced"] == ann.pk
    assert logged(match)
    assert told(ann)[-1].startswith(f"An admin gave your seat in #{match.code} to a computer player, {seat.player}.")
    assert "Ann replaced by" in logged(match).get_change_message()
    assert computer_moves.play_computer_move(match.pk)


def replace_page(client, match: Match) -> str:
    """The Replace action's page, before Confirm."""
    url = reverse("admin:games_match_changelist")
    return client.post(url, {"action": "replace_with_computer", "_selected_action": [match.pk]}).content.decode()


def test_replace_offers_only_the_seats_people_hold_and_says_what_will_happen(admin_client, match, ann):
    """It offered the computers' seats too (then refused), and said nothing of the match
    finishing in a second, counted as the replaced person's loss."""
    page = replace_page(admin_client, match)
    offered = re.findall(r'<option value="(\d)"', page)
    assert offered == [str(match.seats.get(player=ann).position)]
    assert "counts neither as his win nor as his loss" in page
    assert "Ann is the only person in this match: once he is replaced, three computer players" in page


def test_replace_in_a_match_of_computers_says_there_is_nobody_to_replace(admin_client, match, ann):
    moderation.replace_with_computer(match, match.seats.get(player=ann).position, "root")
    page = replace_page(admin_client, refresh(match))
    assert not re.findall(r'<option value="\d"', page)
    assert "Every seat is a computer player&#x27;s: there is nobody to replace." in page


def test_with_another_person_left_replace_does_not_say_the_computers_finish_it(admin_client, ann):
    bea = terminal_player("bea", "<b>Bea</b>")
    handle(ann, "new", "terminal")
    match = Match.objects.get(seats__player=ann)
    handle(bea, f"join {match.code}", "terminal")
    handle(ann, "bot", "terminal")
    page = replace_page(admin_client, refresh(match))
    assert len(re.findall(r'<option value="\d"', page)) == 2
    assert "counts neither as his win nor as his loss" in page
    assert "only person" not in page
    moderation.replace_with_computer(match, match.seats.get(player=ann).position, "root")
    page = replace_page(admin_client, refresh(match))
    assert "&lt;b&gt;Bea&lt;/b&gt; is the only person in this match" in page


@pytest.mark.parametrize("action", ["adjudicate", "replace_with_computer"])
def test_no_seat_is_chosen_in_advance_so_a_hasty_confirm_changes_nothing(admin_client, match, action):
    url = reverse("admin:games_match_changelist")
    response = admin_client.post(url, {"action": action, "_selected_action": [match.pk]})
    assert b'<option value="" selected>---------</option>' in response.content
    assert b"Ann, 0 points" in response.content
    response = act(admin_client, "match", action, [match], reason="hasty", strength="easy")
    assert response.status_code == 200  # the form again, with its error
    assert refresh(match).version == match.version


@pytest.mark.parametrize(
    ("model", "action", "readers"),
    [
        ("match", "pause", "Every player of the match reads it."),
        ("player", "ban", "Only he reads it: the other players are told only that a computer plays for him."),
        ("player", "unban", "Only admins read it."),
    ],
)
def test_the_reason_field_says_who_will_read_it(admin_client, match, ann, model, action, readers):
    chosen = match if model == "match" else ann
    url = reverse(f"admin:games_{model}_changelist")
    response = admin_client.post(url, {"action": action, "_selected_action": [chosen.pk]})
    assert readers in response.content.decode()


def test_a_computer_player_cannot_be_banned(admin_client, match):
    computer = next(seat.player for seat in match.seats.all() if seat.player.is_computer)
    response = act(admin_client, "player", "ban", [computer], reason="test")
    computer.refresh_from_db()
    assert not computer.banned
    assert not admin_events(match, "ban")
    said = [str(message) for message in get_messages(response.wsgi_request)]
    assert said == [f"{computer} is a computer player: replace it in a match instead."]


def test_a_refused_action_names_the_match_once(admin_client, match):
    act(admin_client, "match", "pause", [match])
    response = act(admin_client, "match", "pause", [match])
    said = [str(message) for message in get_messages(response.wsgi_request)]
    assert said[-1] == f"#{match.code} is already paused."


def test_a_paused_match_says_so_in_the_list_and_can_be_filtered(admin_client, match, ann):
    handle(ann, "new", "terminal")  # a second match, waiting: not paused
    act(admin_client, "match", "pause", [match])
    url = reverse("admin:games_match_changelist")
    response = admin_client.get(url, {"paused_at__isempty": "0"})
    assert list(response.context["cl"].result_list) == [match]
    assert "paused" in response.context["cl"].list_display
    paused_at = timezone.localtime(refresh(match).paused_at).strftime("%H:%M")
    assert '<td class="field-paused"><span dir="ltr">' in response.content.decode()
    assert f"{paused_at} UTC" in response.content.decode()


def test_the_events_list_shows_the_newest_first(admin_client, match):
    response = admin_client.get(reverse("admin:games_event_changelist"))
    shown = [event.pk for event in response.context["cl"].result_list]
    assert shown == sorted(shown, reverse=True)
    assert shown[0] == match.events.latest("pk").pk


def test_a_telegram_message_is_shown_as_the_player_reads_it_not_as_html(admin_client):
    bea = telegram_player(7, 7, "Bea")
    message = Outbox.objects.create(
        recipient=bea, channel="telegram", address="7", kind="reply", text="<b>#AB12</b> Ann &amp; Bob &lt;3"
    )
    assert OutboxAdmin(Outbox, admin.site).shown_text(message) == "#AB12 Ann & Bob <3"
    response = admin_client.get(reverse("admin:games_outbox_change", args=[message.pk]))
    assert b"#AB12 Ann &amp; Bob &lt;3" in response.content  # escaped once, by the page


def test_a_refusal_that_does_not_name_the_match_is_said_of_it(admin_client, match, monkeypatch):
    def refuse(*args: object) -> None:
        raise ServiceError(EmptyExtension())

    monkeypatch.setattr(moderation, "pause", refuse)
    response = act(admin_client, "match", "pause", [match])
    said = [str(message) for message in get_messages(response.wsgi_request)]
    assert said == [f"#{match.code}: An extension must be longer than zero."]


def test_a_seat_a_computer_took_meanwhile_is_refused_by_the_service(match):
    computer = next(seat for seat in match.seats.all() if seat.player.is_computer)
    with pytest.raises(ServiceError) as refused:
        moderation.replace_with_computer(match, computer.position, "root")
    assert refused.value.refusal == SeatIsComputer()


def test_a_refusal_that_names_a_player_as_a_word_is_not_said_of_him_again(admin_client):
    response = act(admin_client, "player", "unban", [terminal_player("a", "a")])
    assert [str(message) for message in get_messages(response.wsgi_request)] == ["a is not banned."]


def test_a_long_matchs_page_shows_its_newest_events_and_links_to_all_of_them(admin_client, match, ann):
    while match.events.count() <= 60:
        if not computer_moves.play_computer_move(match.pk):
            with change():
                move = computer_moves.safe_move(load_table(match.pk).hand)
            handle(ann, str(move), "terminal")
    count = match.events.count()
    response = admin_client.get(reverse("admin:games_match_change", args=[match.pk]))
    (events,) = [inline for inline in response.context["inline_admin_formsets"] if inline.opts.model is Event]
    shown = [form.instance.seq for form in events.formset.forms]
    assert shown == sorted(match.events.values_list("seq", flat=True), reverse=True)[:50]
    assert f"The newest 50 of {count} events are shown above." in response.content.decode()
    url = reverse("admin:games_event_changelist") + f"?match__id__exact={match.pk}"
    assert url.replace("&", "&amp;") in response.content.decode()
    handle(ann, "new", "terminal")  # another match's events are not listed
    listed = admin_client.get(url).context["cl"]
    assert listed.result_count == count < Event.objects.count()


def test_a_short_matchs_page_shows_all_its_events_without_a_note(admin_client, match):
    response = admin_client.get(reverse("admin:games_match_change", args=[match.pk]))
    (events,) = [inline for inline in response.context["inline_admin_formsets"] if inline.opts.model is Event]
    assert len(events.formset.forms) == match.events.count() < 50
    assert "are shown above" not in response.content.decode()


def test_a_match_is_found_by_its_code_written_with_a_hash(admin_client, match):
    for search in (match.code, f"#{match.code}", f"#{match.code.lower()}"):
        response = admin_client.get(reverse("admin:games_match_changelist"), {"q": search})
        assert list(response.context["cl"].result_list) == [match], search


def test_an_old_button_is_refused_after_an_admin_action(admin_client, match, ann):
    match = until_to_move(match, ann)
    act(admin_client, "match", "extend", [match], hours="1")
    with change():
        move = computer_moves.safe_move(load_table(match.pk).hand)
    moves = match.events.filter(kind="move").count()
    handle(ann, f"#{match.code}@{match.version} {move}", "terminal")
    assert match.events.filter(kind="move").count() == moves


def test_ban_and_unban(admin_client, match, ann):
    act(admin_client, "player", "ban", [ann], reason="abuse", days="3")
    ann.refresh_from_db()
    assert ann.is_banned()
    assert ann.ban_expires_at - timezone.now() > timedelta(days=2, hours=23)
    assert admin_events(match, "ban")[0].data["reason"] == "abuse"
    assert Match.objects.get(pk=match.pk).version > match.version
    assert "abuse" in logged(ann).get_change_message()
    assert any("banned" in text for text in told(ann))
    assert "You are banned from gin3: abuse" in handle(ann, "status", "terminal")

    act(admin_client, "player", "unban", [ann])
    ann.refresh_from_db()
    assert not ann.is_banned()
    assert admin_events(match, "unban")
    assert "banned" not in handle(ann, "status", "terminal")


def test_a_ban_without_days_lasts_until_unbanned(admin_client, ann):
    act(admin_client, "player", "ban", [ann], reason="spam", days="")
    ann.refresh_from_db()
    assert ann.banned and ann.ban_expires_at is None


def test_a_refused_action_changes_nothing_and_says_why(admin_client, match):
    response = act(admin_client, "match", "resume", [match])
    assert Match.objects.get(pk=match.pk).version == match.version
    assert not LogEntry.objects.exists()
    assert any("is not paused" in str(message) for message in get_messages(response.wsgi_request))


def offered(admin_client, page: str) -> set[str]:
    """The actions a change page offers as buttons."""
    response = admin_client.get(page)
    assert response.status_code == 200
    return set(re.findall(r'name="action" value="(\w+)"', response.content.decode()))


def test_change_page_offers_as_buttons_the_actions_its_match_allows_now(admin_client, match):
    """helper-36: a running match offered Pause and Resume, a finished one Abort and Adjudicate."""
    page = reverse("admin:games_match_change", args=[match.pk])
    assert offered(admin_client, page) == {"abort", "adjudicate", "pause", "extend", "replace_with_computer"}
    moderation.pause(match, "root")
    assert offered(admin_client, page) == {"abort", "adjudicate", "resume", "extend", "replace_with_computer"}
    moderation.abort(match, "root")
    assert offered(admin_client, page) == set()


def test_a_players_page_offers_ban_or_lifting_it_as_he_stands(admin_client, ann):
    page = reverse("admin:games_player_change", args=[ann.pk])
    assert offered(admin_client, page) == {"ban"}
    moderation.ban(ann, "root")
    assert offered(admin_client, page) == {"unban"}


def test_pages_never_show_the_deck_of_a_hand_in_play(admin_client, match):
    hand = match.hands.get()
    pages = [
        reverse("admin:games_match_changelist"),
        reverse("admin:games_match_change", args=[match.pk]),
        reverse("admin:games_event_changelist"),
        reverse("admin:games_outbox_changelist"),
        reverse("admin:games_player_changelist"),
    ]
    pages += [reverse("admin:games_event_change", args=[pk]) for pk in match.events.values_list("pk", flat=True)]
    for url in pages:
        response = admin_client.get(url)
        assert response.status_code == 200, url
        assert hand.deck.encode() not in response.content, url
        assert hand.salt.encode() not in response.content, url


def test_a_message_that_may_show_cards_is_hidden_while_the_match_runs(admin_client, match, ann):
    message = Outbox.objects.filter(recipient=ann, match=match).first()
    response = admin_client.get(reverse("admin:games_outbox_change", args=[message.pk]))
    assert response.status_code == 200
    assert b"hidden while the match runs" in response.content
    assert message.text.encode() not in response.content


def test_a_reply_showing_his_cards_stays_hidden_after_his_seat_goes_to_a_computer(admin_client, match, ann):
    """A reply was hidden only while its reader sat in a running match, so once a
    moderator gave his seat to a computer, the hand he had been dealt, still in play,
    was on the desk."""
    handle(ann, "status", "terminal")
    reply = Outbox.objects.filter(recipient=ann, kind=Outbox.Kind.REPLY).latest("pk")
    with change():
        hand = load_table(match.pk).hand
    assert any(str(card) in reply.text for card in hand.box + hand.captain)  # hers, or the captain's she advises
    seat = match.seats.get(player=ann).position
    act(admin_client, "match", "replace_with_computer", [match], seat=seat, strength="easy", reason="test")
    assert not match.seats.filter(player=ann).exists()
    response = admin_client.get(reverse("admin:games_outbox_change", args=[reply.pk]))
    assert response.status_code == 200
    assert b"hidden while the match runs" in response.content
    assert reply.text.encode() not in response.content
    act(admin_client, "match", "abort", [match], reason="test")
    response = admin_client.get(reverse("admin:games_outbox_change", args=[reply.pk]))
    assert b"hidden while the match runs" not in response.content


def test_the_deck_is_shown_once_the_match_is_over(admin_client, match):
    act(admin_client, "match", "abort", [match], reason="test")
    hand = match.hands.get()
    response = admin_client.get(reverse("admin:games_match_change", args=[match.pk]))
    assert hand.deck.encode() in response.content


def test_nothing_is_added_changed_or_deleted_by_hand(admin_client, match):
    for model in ("match", "player", "event", "outbox"):
        assert admin_client.get(reverse(f"admin:games_{model}_add")).status_code == 403
    response = admin_client.post(reverse("admin:games_match_change", args=[match.pk]), {"status": "finished"})
    assert response.status_code == 403
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING


def test_player_list_counts_finished_matches(admin_client, match, ann):
    act(admin_client, "match", "adjudicate", [match], seat=match.seats.get(player=ann).position, reason="r")
    response = admin_client.get(reverse("admin:games_player_changelist"))
    assert response.status_code == 200
    assert [player.played for player in response.context["cl"].result_list if player == ann] == [1]


def test_a_suggestion_is_hidden_until_its_hand_ends(admin_client, match):
    with change():
        table = load_table(match.pk)
        card = table.hand.captain[0]
        event = state.append_event(table.match, "suggestion", table.hand_row, None, move=f"discard {card}")
    response = admin_client.get(reverse("admin:games_event_change", args=[event.pk]))
    assert response.status_code == 200
    assert f"discard {card}" not in response.content.decode()
    moderation.abort(match, "root", "test")
    assert f"discard {card}" in admin_client.get(reverse("admin:games_event_changelist")).content.decode()


def test_the_desk_is_gin3s_moderation_desk_on_every_page_not_django_administration(client, django_user_model, match):
    """The login page and every page of the desk said "Django administration"."""
    login = client.get(reverse("admin:login")).content.decode()
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw"))
    pages = [
        reverse("admin:index"),
        reverse("admin:games_match_changelist"),
        reverse("admin:games_match_change", args=[match.pk]),
        reverse("admin:games_event_changelist"),
        reverse("admin:games_outbox_changelist"),
        reverse("admin:games_player_changelist"),
    ]
    for html in [login, *(client.get(page).content.decode() for page in pages)]:
        assert "Django" not in html
        assert re.search(r"<title>[^<]*gin3 moderation desk</title>", html)
        assert re.search(r'id="site-name"><a href="[^"]*">gin3 moderation desk</a>', html)
    assert "<h1>Moderation</h1>" in client.get(reverse("admin:index")).content.decode()


def test_a_computer_players_join_is_his_added_by_the_person_not_the_persons(admin_client, match, ann):
    """Ann's ``bot`` seats a computer player: the log records her as the actor of its
    "joined" event (her command), and the desk said she joined, three times over."""
    computers = [seat.player.display_name for seat in match.seats.exclude(player=ann).order_by("position")]
    joined = match.events.filter(kind=Event.Kind.JOINED).order_by("seq")
    assert [event.actor for event in joined] == [ann, ann, ann]  # the stored log, unchanged
    expected = ["Ann", *(f"{computer} (added by Ann)" for computer in computers)]
    events_list = admin_client.get(reverse("admin:games_event_changelist"), {"kind__exact": "joined"})
    cells = re.findall(r'<td class="field-by">([^<]*)</td>', events_list.content.decode())
    assert cells == expected[::-1]  # the newest first
    match_page = admin_client.get(reverse("admin:games_match_change", args=[match.pk])).content.decode()
    oldest = re.findall(r'<td class="field-by">\s*<p>([^<]*)</p>', match_page)[-4:]  # the newest first
    assert oldest == [*expected[::-1], "Ann"]  # the three joins, then her "created"
    event_page = admin_client.get(reverse("admin:games_event_change", args=[joined.last().pk])).content.decode()
    assert f'<div class="readonly">{expected[-1]}</div>' in event_page


def test_only_a_message_waiting_to_be_sent_shows_its_next_attempt(admin_client, ann):
    """A message already sent said "Next attempt at" the time it was sent."""
    now = timezone.now()
    shown = {}
    for status in Outbox.Status.values:
        sent_at = now if status in ("sent", "delivered") else None
        message = Outbox.objects.create(
            recipient=ann, channel="terminal", address="ann", kind="reply", text="hi", status=status, sent_at=sent_at
        )
        page = admin_client.get(reverse("admin:games_outbox_change", args=[message.pk])).content.decode()
        shown[status] = "Next attempt at" in page
    assert shown == {status: status in ("pending", "sending") for status in Outbox.Status.values}
