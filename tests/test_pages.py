"""The public pages: scoreboard, player, match (replay, commitment, live table)
and lobby; what they show, that they never show a hidden card (R4.4), and that
each costs a fixed number of queries however many matches are stored."""

from __future__ import annotations

import json
import re
from datetime import UTC, timedelta
from html.parser import HTMLParser
from itertools import pairwise

import pytest
from django.conf import settings
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from games.engine import Role, parse_action, parse_cards, replay
from games.models import Match, Player, PlayerMatch, PlayerRecord
from games.services import handle
from games.services.plumbing.change import change
from games.services.read.public import public_match_view
from games.services.write import moderation
from games.services.write.locked_table import load_table
from games.services.write.players import terminal_player
from games.site.charts import line_chart

from .conftest import player_in_role
from .pages_support import cards_on, finished_match, running_match, secret_cards, step
from .test_services_play import knock_with_layoffs


@pytest.fixture(autouse=True)
def background_off(settings):
    settings.GIN3_BACKGROUND = "off"


@pytest.fixture
def ann(db) -> Player:
    return terminal_player("ann", "Ann")


def get(client, name: str, *args, **params) -> str:
    response = client.get(reverse(f"games:{name}", args=args), params)
    assert response.status_code == 200
    return response.content.decode()


def people(*names: str) -> list[Player]:
    return [Player.objects.create(display_name=name) for name in names]


def play_first_hand(match: Match, player: Player) -> Match:
    while not match.hands.filter(ended_at__isnull=False).exists():
        step(match, player)
    return Match.objects.get(pk=match.pk)


# Scoreboard ---------------------------------------------------------------------


@pytest.mark.django_db
def test_scoreboard_ranks_people_by_rating_and_computers_apart(client, settings):
    ann, bob, cy, dee = people("Ann", "Bob", "Cy", "Dee")
    bot = Player.objects.create(display_name="Bot 1", is_computer=True, strength="normal")
    for _round in range(5):
        finished_match([ann, bob, cy], [100, 40, 10], ann)
        finished_match([ann, bob, bot], [20, 100, 50], bot)
    finished_match([dee, ann, bob], [100, 0, 0], dee)  # Dee has one match: not ranked yet

    html = get(client, "scoreboard")

    ranked = [record.player.display_name for _rank, record, _recent in get_context(client, "ranked")]
    assert "Bot 1" not in ranked and "Dee" not in ranked
    assert set(ranked) == {"Ann", "Bob", "Cy"}
    ratings = [record.rating for _rank, record, _recent in get_context(client, "ranked")]
    assert ratings == sorted(ratings, reverse=True)
    assert [r.player.display_name for r in get_context(client, "computers")] == ["Bot 1"]
    assert reverse("games:player", args=[ann.pk]) in html
    assert reverse("games:player", args=[bot.pk]) in html
    assert reverse("games:match", args=[Match.objects.latest("finished_at").code]) in html


def get_context(client, key: str, **params):
    return client.get(reverse("games:scoreboard"), params).context[key]


@pytest.mark.django_db
def test_scoreboard_last_30_days_shows_who_played_lately_with_the_period_totals(client):
    ann, bob, cy, old = people("Ann", "Bob", "Cy", "Old")
    for _round in range(5):
        finished_match([old, bob, cy], [100, 0, 0], old, days_ago=90)
    for _round in range(5):
        finished_match([ann, bob, cy], [100, 0, 0], ann, days_ago=2)
    rows = get_context(client, "ranked", period="30d")
    names = [record.player.display_name for _rank, record, _recent in rows]
    assert "Old" not in names and "Ann" in names
    recent = {record.player.display_name: totals for _rank, record, totals in rows}
    assert (recent["Ann"]["matches"], recent["Ann"]["wins"]) == (5, 5)
    assert recent["Bob"]["matches"] == 5  # his 5 matches of 90 days ago are not counted
    assert "Old" in [r.player.display_name for _rank, r, _t in get_context(client, "ranked")]


@pytest.mark.django_db
def test_scoreboard_searches_by_the_start_of_a_name_and_pages(client, settings):
    players = people(*(f"Zed {number:02}" for number in range(30)), "Amy", "Bo")
    amy, bo = players[-2:]
    for index in range(30):
        for _round in range(5):
            finished_match([players[index], amy, bo], [100, 0, 0], players[index])
    found = [record.player.display_name for _r, record, _t in get_context(client, "ranked", q="zED 1")]
    assert found == [f"Zed {number}" for number in range(10, 20)]
    assert get_context(client, "ranked", q="nobody") == []
    first = get_context(client, "ranked")
    second = get_context(client, "ranked", page=2)
    assert len(first) == 25 and len(second) == 32 - 25
    assert second[0][0] == 26  # ranks go on across pages
    assert "page=2" in get(client, "scoreboard") and "page=3" not in get(client, "scoreboard", page=2)
    assert client.get(reverse("games:scoreboard"), {"page": "x"}).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("params", [{}, {"period": "30d"}, {"q": "a"}])
def test_scoreboard_queries_do_not_grow_with_the_matches(client, django_assert_max_num_queries, params):
    ann, bob, cy = people("Ann", "Bob", "Cy")
    for _round in range(12):
        finished_match([ann, bob, cy], [100, 10, 0], ann)
    with django_assert_max_num_queries(9):
        client.get(reverse("games:scoreboard"), params)


# Player page ---------------------------------------------------------------------


@pytest.mark.django_db
def test_player_page_shows_rating_chart_totals_matches_and_head_to_head(client):
    ann, bob, cy, dee = people("Ann", "Bob", "Cy", "Dee")
    for _round in range(3):
        finished_match([ann, bob, cy], [100, 40, 10], ann)
    finished_match([ann, bob, dee], [0, 100, 30], bob)
    record = PlayerRecord.objects.get(player=ann)

    html = get(client, "player", ann.pk)

    assert f"Rating {record.rating}" in html
    assert "<polyline" in html  # the rating's history
    assert "Hands won as box" in html and "Points per hand won" in html
    assert html.count('class="tag win"') == 3 and html.count('class="tag loss"') == 1
    rivals = [
        (r.opponent.display_name, r.matches, r.wins, r.losses)
        for r in client.get(reverse("games:player", args=[ann.pk])).context["rivals"]
    ]
    assert rivals[:2] == [("Bob", 4, 3, 1), ("Cy", 3, 3, 0)]
    assert reverse("games:player", args=[bob.pk]) in html


@pytest.mark.django_db
@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_a_charts_drawing_writes_its_numbers_with_a_dot_in_every_language(client, language):
    """Lithuanian and Macedonian write 210,0: in an SVG attribute that drew no gridlines
    and cut the end labels to one digit."""
    ann, bob, cy = people("Ann", "Bob", "Cy")
    finished_match([ann, bob, cy], [100, 40, 10], ann)
    html = client.get(reverse("games:player", args=[ann.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    svg = html[html.index('<svg class="chart"') : html.index("</svg>")]
    number = r"-?\d+(?:\.\d+)?"
    coordinates = re.findall(r' (?:x1|x2|y1|y2|cx|cy|x|y)="([^"]*)"', svg)
    points = [pair for found in re.findall(r' points="([^"]*)"', svg) for pair in found.split()]
    assert coordinates and points
    assert [value for value in coordinates if not re.fullmatch(number, value)] == []
    assert [pair for pair in points if not re.fullmatch(f"{number},{number}", pair)] == []


@pytest.mark.django_db
def test_a_match_still_waiting_for_players_says_so_among_a_players_matches(client, ann):
    """It was listed under 'Playing now' with a score of 0 like a match under way."""
    handle(ann, "new", "terminal")
    now = get(client, "player", ann.pk).split('id="now"')[1].split("</section>")[0]
    assert '<span class="tag">Waiting for players</span>' in now


@pytest.mark.django_db
def test_a_rating_that_rose_after_a_lost_match_is_explained(client):
    """Two lost matches, and the rating rose: the page said nothing of why."""
    ann, bob, cy = people("Ann", "Bob", "Cy")
    finished_match([bob, ann, cy], [100, 90, 10], bob)
    finished_match([bob, ann, cy], [100, 90, 10], bob)
    rises = PlayerMatch.objects.filter(player=ann, won=False, rating_after__gt=F("rating_before")).count()
    html = get(client, "player", ann.pk)
    assert rises == 2  # as a new player's estimate gets surer
    assert html.count('<a href="#how-ratings-work" data-rating-why>') == rises
    assert 'id="how-ratings-work"' in html and "a rating can rise after a lost match" in html
    assert "data-rating-why" not in get(client, "player", bob.pk)


@pytest.mark.django_db
def test_player_page_lists_running_matches_and_pages_the_finished(client, ann):
    match = running_match(ann)
    bob, cy = people("Bob", "Cy")
    for _round in range(30):
        finished_match([ann, bob, cy], [100, 0, 0], ann)
    html = get(client, "player", ann.pk)
    assert reverse("games:match", args=[match.code]) in html
    assert "page=2" in html
    assert get(client, "player", ann.pk, page=2).count('class="tag win"') == 5


@pytest.mark.django_db
def test_player_page_queries_do_not_grow_with_his_matches(client, ann, django_assert_max_num_queries):
    running_match(ann)
    bob, cy = people("Bob", "Cy")
    for _round in range(30):
        finished_match([ann, bob, cy], [100, 0, 0], ann)
    with django_assert_max_num_queries(10):
        client.get(reverse("games:player", args=[ann.pk]))


@pytest.mark.django_db
def test_a_match_whose_seat_he_lost_to_a_computer_is_marked_replaced_not_lost(client, ann):
    match = play_first_hand(running_match(ann), ann)
    moderation.replace_with_computer(match, match.seats.get(player=ann).position, "root")
    moderation.adjudicate(match, 0, "root", "test")
    html = get(client, "player", ann.pk)
    assert reverse("games:match", args=[match.code]) in html
    assert ">replaced</span>" in html and 'class="tag loss"' not in html
    assert "No finished match yet." not in html


@pytest.mark.django_db
def test_unknown_player_is_404(client):
    assert client.get(reverse("games:player", args=[999999])).status_code == 404


# Match page: running -----------------------------------------------------------------


@pytest.mark.django_db
def test_r4_4_a_running_match_never_shows_a_hidden_card(client, ann):
    match = running_match(ann)
    hand_row = match.hands.get()
    for _move in range(40):
        html = get(client, "match", match.code)
        live = client.get(reverse("games:live", args=[match.code])).content.decode()
        assert "Hand 1 in play" in html
        assert hand_row.commitment in html
        assert not cards_on(html) & secret_cards(match)
        assert not cards_on(live) & secret_cards(match)
        assert hand_row.salt not in html and hand_row.salt not in live
        step(match, ann)
        if match.hands.filter(ended_at__isnull=False).exists():
            break


@pytest.mark.django_db
def test_running_match_shows_the_public_table_in_symbols(client, ann):
    match = running_match(ann)
    with change():
        table = load_table(match.pk)
    html = get(client, "match", match.code)
    top = table.hand.pile[-1]
    assert top.symbol.replace("T", "10")[-1] in html
    assert {str(top)} <= cards_on(html)
    assert f"data-stock>{len(table.hand.stock)}<" in html
    assert table.name(table.mover) in html
    assert "Ann" in html and "Bot 1" in html


@pytest.mark.django_db
def test_r3_2_the_public_page_never_says_a_move_was_the_sitters_advice(client, match3):
    from .conftest import player_in_role

    captain, sitter = player_in_role(match3, "captain"), player_in_role(match3, "sitter")
    handle(sitter, "suggest take", "terminal")
    handle(captain, "accept", "terminal")
    view = public_match_view(Match.objects.get(pk=match3.pk))
    assert view.table.moves and all("suggestion" not in move.automatic for move in view.table.moves)
    assert "suggest" not in get(client, "live", match3.code)


@pytest.mark.django_db
def test_live_json_answers_304_while_nothing_moved_and_follows_each_move(client, ann):
    match = running_match(ann)
    url = reverse("games:live", args=[match.code])
    first = client.get(url)
    data = json.loads(first.content)
    assert data["table"]["hand_number"] == 1 and data["version"] == match.version
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert client.get(url, {"v": data["version"]}).status_code == 304
    before = data["table"]["stock_count"], len(data["table"]["moves"])
    step(match, ann)
    moved = json.loads(client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).content)
    assert moved["version"] > data["version"]
    assert (moved["table"]["stock_count"], len(moved["table"]["moves"])) != before
    assert client.get(reverse("games:live", args=["ZZZZ"])).status_code == 404


@pytest.mark.django_db
def test_live_json_poll_that_finds_nothing_new_is_one_query(client, ann, django_assert_num_queries):
    match = running_match(ann)
    with django_assert_num_queries(1):
        assert client.get(reverse("games:live", args=[match.code]), {"v": match.version}).status_code == 304


# Match page: finished hands ----------------------------------------------------------------


@pytest.mark.django_db
def test_replay_steps_are_the_engine_hand_after_each_move(client, ann):
    match = play_first_hand(running_match(ann, "to 500"), ann)
    row = match.hands.get(number=1)
    logged = row.events.filter(kind="move").order_by("seq").values_list("data", flat=True)
    moves = [parse_action(data["move"]) for data in logged]
    hand = public_match_view(match).hands[0]
    assert len(hand.steps) == len(moves) + 1
    for index, replay_step in enumerate(hand.steps):
        engine = replay(parse_cards(row.deck), moves[:index], match.rules)
        assert (replay_step.box, replay_step.captain) == (tuple(sorted(engine.box)), tuple(sorted(engine.captain)))
        assert replay_step.stock_count == len(engine.stock)
        assert replay_step.pile_top == (engine.pile[-1] if engine.pile else None)
    page = client.get(reverse("games:match", args=[match.code])).content.decode()
    data = json.loads(page.split('<script id="replays" type="application/json">')[1].split("</script>")[0])
    assert len(data["1"]["steps"]) == len(moves) + 1


@pytest.mark.django_db
def test_finished_hand_lists_every_move_the_deal_order_and_how_to_verify(client, ann):
    match = play_first_hand(running_match(ann, "to 500"), ann)
    first = match.hands.get(number=1)
    html = get(client, "match", match.code)
    assert first.deck in html and first.salt in html and first.commitment in html
    assert 'sha256("salt:deck")' in html
    assert "the 21st card is turned face up" in html
    assert html.count("<figure>") == 52
    logged = first.events.filter(kind="move").count()
    listed = html.split("data-steps>")[1].split("</ol>")[0].count("<li")
    assert listed == logged + 1 + (1 if first.result in ("knock", "gin", "undercut") else 0)
    assert set(cards_on(first.deck)) <= cards_on(html)


@pytest.mark.django_db
def test_finished_match_reveals_the_hand_it_stopped_and_names_the_winner(client, ann):
    match = play_first_hand(running_match(ann, "to 500"), ann)
    moderation.adjudicate(match, 0, "root", "test")
    html = get(client, "match", match.code)
    first, second = match.hands.all()
    assert first.deck in html and first.salt in html  # the last hand that ended is shown in full
    assert second.deck not in html and "?hand=2#hand-2" in html  # the others a link away
    second_page = get(client, "match", match.code, hand=2)
    assert second.deck in second_page and second.salt in second_page
    assert "won the match" in html
    assert "Stopped when the match ended." in html
    assert "<polyline" in html  # the scores, hand by hand


def test_r10_3_a_resigned_match_says_who_resigned_and_that_nobody_won_a_tie(client, match3):
    captain = player_in_role(match3, Role.CAPTAIN)
    handle(captain, "resign yes", "terminal")
    html = get(client, "match", match3.code)
    assert f"{captain.display_name} resigned." in html and "Nobody won the match." in html
    assert "nobody won" in get(client, "scoreboard")


def test_a_person_a_computer_plays_for_is_not_marked_a_computer(client, match3):
    """A newcomer who missed three turns read "root | computer" on his match's page."""
    seat = match3.seats.select_related("player").get(position=0)
    match3.seats.filter(pk=seat.pk).update(autopilot=True)
    row = re.search(r'<tr data-position="0">.*?</td>', get(client, "match", match3.code), re.S)
    assert row and seat.player.display_name in row.group(0)
    assert "a computer plays in their place" in row.group(0) and ">computer<" not in row.group(0)


@pytest.mark.django_db
def test_r7_5_a_hands_end_says_who_laid_off_which_cards_on_whose_meld(client, match3):
    """It said "Laid off on the knocker's melds: 3h 7h": whose cards, on which meld?"""
    box, captain = knock_with_layoffs(match3)
    html = get(client, "match", match3.code, hand=1)
    line = re.search(r"<div class=\"row\" data-layoff>(.*?)</div>", html, re.DOTALL).group(1)
    assert re.sub(r"<[^>]+>", "", line) == f"{box.display_name} laid off 3♥7♥ on {captain.display_name}'s meld 4♥5♥6♥."
    assert f'<bdi class="name">{captain.display_name}</bdi>' in line and '<span class="meld">' in line


@pytest.mark.django_db
def test_a_finished_matchs_players_show_their_roles_in_its_last_hand(client, ann):
    """The role column was empty once the match was over."""
    match = play_first_hand(running_match(ann, "to 500"), ann)
    moderation.adjudicate(match, 0, "root", "test")
    last = match.hands.order_by("-number").first()
    html = get(client, "match", match.code)
    assert "Role in the last hand" in html
    roles = re.findall(r'<tr data-position="(\d)">.*?<td data-role>([^<]*)</td>', html, re.DOTALL)
    expected = {str(last.box): "box", str(last.captain): "captain", str(last.sitter): "sitter"}
    assert dict(roles) == expected


@pytest.mark.django_db
def test_aborted_match_reveals_the_hand_it_stopped(client, ann):
    match = running_match(ann)
    moderation.abort(match, "root", "test")
    hand = match.hands.get()
    html = get(client, "match", match.code)
    assert hand.deck in html and hand.salt in html


@pytest.mark.django_db
def test_cards_show_rank_and_suit_symbol_in_red_or_black(client, ann):
    match = play_first_hand(running_match(ann, "to 500"), ann)
    html = get(client, "match", match.code)
    assert '<span class="card red" title="10 of hearts">10<span class="suit">♥</span></span>' in html
    assert '<span class="card black" title="ace of spades">A<span class="suit">♠</span></span>' in html
    lithuanian = client.get(reverse("games:match", args=[match.code]), HTTP_ACCEPT_LANGUAGE="lt").content.decode()
    assert 'title="vynų tūzas">A<span class="suit">♠</span>' in lithuanian  # the suit declined, a name as read


@pytest.mark.django_db
def test_match_page_work_does_not_grow_with_its_hands(client, ann, django_assert_max_num_queries):
    match = running_match(ann, "to 500")
    for _hand in range(3):
        count = match.hands.filter(ended_at__isnull=False).count()
        while match.hands.filter(ended_at__isnull=False).count() == count:
            step(match, ann)
    with django_assert_max_num_queries(5):
        html = get(client, "match", match.code)
    assert html.count("data-replay=") == 1  # one hand replayed in full, the others a link away
    assert html.count("?hand=") == 2
    assert client.get(reverse("games:match", args=[match.code]), {"hand": "x"}).status_code == 200


@pytest.mark.django_db
def test_a_match_and_its_rematch_link_to_each_other(client, ann):
    old = finished_match([*people("Bea", "Cy"), ann], [40, 30, 101], ann)
    again = Match.objects.create(code="AGN2", status=Match.Status.LOBBY, rematch_of=old)
    assert f'href="{reverse("games:match", args=[again.code])}"' in get(client, "match", old.code)
    assert f'href="{reverse("games:match", args=[old.code])}"' in get(client, "match", again.code)


@pytest.mark.django_db
def test_a_running_match_says_who_is_away_and_until_when_in_the_readers_zone(client, ann):
    match = running_match(ann)
    until = timezone.now() + timedelta(days=3)
    Player.objects.filter(pk=ann.pk).update(away_until=until)
    html = get(client, "match", match.code)
    assert "away until" in html
    # For site.js, to the second: HTML's dates have no microseconds (the validator's one error).
    assert f'<time datetime="{until.astimezone(UTC).replace(microsecond=0).isoformat()}" data-local>' in html
    Player.objects.filter(pk=ann.pk).update(away_until=timezone.now() - timedelta(minutes=1))
    assert "away until" not in get(client, "match", match.code)


@pytest.mark.django_db
def test_lobby_match_page_shows_who_is_waiting_and_how_to_join(client, ann):
    handle(ann, "new", "terminal")
    match = Match.objects.get(seats__player=ann)
    html = get(client, "match", match.code)
    assert "Waiting for players" in html and "Ann" in html and f"join {match.code}" in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("username", "says"), [("", "To join, send:"), ("gin3_bot", "Join on Telegram</a> · or send:")]
)
def test_a_lobby_match_page_says_or_only_after_a_telegram_link(client, ann, settings, username, says):
    settings.TELEGRAM_BOT_USERNAME = username
    handle(ann, "new", "terminal")
    html = get(client, "match", Match.objects.get(seats__player=ann).code)
    assert says in html and html.count("or send:") == (1 if username else 0)


@pytest.mark.django_db
def test_a_match_aborted_before_anyone_sat_says_so_rather_than_an_empty_table(client):
    Match.objects.create(code="GONE", status=Match.Status.ABORTED)
    html = get(client, "match", "GONE")
    players = html.split('id="players"')[1].split("</section>")[0]
    assert "<table" not in players and "None." in players


@pytest.mark.django_db
def test_the_match_page_says_its_time_a_move(client, ann):
    handle(ann, "new 3d", "terminal")
    assert "3d a move" in get(client, "match", Match.objects.get(seats__player=ann).code)


@pytest.mark.django_db
def test_the_hash_name_never_breaks_at_its_hyphen_in_any_language(client, ann):
    match = play_first_hand(running_match(ann, "to 500"), ann)
    english = get(client, "match", match.code)
    assert '<span class="nowrap">SHA-256</span> of the salt' in english
    assert '<span class="nowrap">sha256("salt:deck"),</span>' in english
    hebrew = client.get(reverse("games:match", args=[match.code]), HTTP_ACCEPT_LANGUAGE="he").content.decode()
    assert '<span class="nowrap">ה-SHA-256</span>' in hebrew


@pytest.mark.django_db
def test_unknown_match_is_404(client):
    assert client.get(reverse("games:match", args=["ZZZZ"])).status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/m/ZZZZ/", "/p/999999/", "/no/such/page/"])
def test_a_missing_page_is_the_sites_own_page_in_the_readers_language(client, path):
    """It was Django's bare "Not Found"."""
    response = client.get(path)
    html = response.content.decode()
    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in html and 'class="brand"' in html and "site.css" in html
    assert reverse("games:scoreboard") in html and reverse("games:lobby") in html
    assert ("A player's page is /p/" in html) is path.startswith("/p/")  # helper-36: it spoke of matches
    assert ("A match's page is /m/" in html) is not path.startswith("/p/")
    client.cookies["django_language"] = "he"
    hebrew = client.get(path).content.decode()
    assert 'lang="he" dir="rtl"' in hebrew and "Page not found" not in hebrew


# Lobby ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_lobby_lists_open_matches_with_options_and_how_to_join(client, ann, settings):
    settings.TELEGRAM_BOT_USERNAME = "gin3bot"
    handle(ann, "new to 200", "terminal")
    listed = Match.objects.get(seats__player=ann)
    Match.objects.filter(pk=listed.pk).update(is_open=True)
    handle(terminal_player("zoe", "Zoe Unlisted"), "new", "terminal")  # not listed publicly
    html = get(client, "lobby")
    assert f"join {listed.code}" in html and f"https://t.me/gin3bot?start=join_{listed.code}" in html
    assert "to 200" in html and "Ann" in html and "Zoe Unlisted" not in html


@pytest.mark.django_db
def test_an_empty_lobby_names_the_command_that_lists_a_match_here(client, ann):
    """It said "start one with the text command new", but a match made with new alone is never listed."""
    handle(ann, "new", "terminal")
    html = get(client, "lobby")
    assert "Open one with the text command new open: it is listed here" in html
    assert "Start one with the text command new." not in html


@pytest.mark.django_db
@pytest.mark.parametrize("waiting", [True, False])
def test_the_lobby_says_anyone_can_play_in_a_terminal_with_make_play(client, ann, waiting):
    """It named Telegram and SMS only; ``make play`` needs neither, nor an account."""
    if waiting:
        handle(ann, "new open", "terminal")
    html = get(client, "lobby")
    assert ("No match is waiting for players right now" in html) is not waiting
    assert "Anyone can also play in a terminal: on a computer with gin3's code, make play starts a match" in html


@pytest.mark.django_db
def test_the_lobbys_commands_are_isolated_in_a_right_to_left_page(client):
    """In Hebrew 'bot easy, bot normal או bot hard' came out with its words shuffled."""
    hebrew = client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE="he").content.decode()
    english = client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "\u2066bot easy, bot normal\u2069" in hebrew and "\u2066make play\u2069" in hebrew
    assert "\u2066new open\u2069" in hebrew
    assert "\u2066" not in english


@pytest.mark.django_db
def test_lobby_says_each_matchs_time_a_move_as_the_messages_do(client, ann):
    handle(ann, "new 1h to 150", "terminal")
    handle(terminal_player("bea", "Bea"), "new 3d", "terminal")
    Match.objects.update(is_open=True)
    html = get(client, "lobby")
    assert "1h a move" in html and "3d a move" in html


@pytest.mark.django_db
def test_lobby_queries_are_few(client, ann, django_assert_max_num_queries):
    for _match in range(5):
        handle(ann, "new", "terminal")
    Match.objects.update(is_open=True)
    with django_assert_max_num_queries(3):
        get(client, "lobby")


# Charts ---------------------------------------------------------------------------------


def round_steps(labels: list[str]) -> set[int]:
    values = [int(label) for label in labels]
    return {b - a for a, b in pairwise(values)}


@pytest.mark.parametrize(
    ("values", "step"),
    [([0, 28, 113], 20), ([892, 922, 953], 20), ([1000, 1006, 938], 20), ([0, 0, 5], 5), ([500, 500], 5)],
)
def test_a_charts_y_axis_is_marked_at_round_numbers(values, step):
    chart = line_chart([(("Ann",), values)])
    labels = [tick.label for tick in chart.y_ticks]
    assert round_steps(labels) == {step}, labels
    assert all(int(label) % step == 0 for label in labels), labels
    assert int(labels[0]) <= min(values) and int(labels[-1]) >= max(values)
    assert 3 <= len(labels) <= 7


def test_a_charts_end_labels_are_kept_apart_when_the_lines_end_close():
    chart = line_chart([(("Ann",), [0, 40, 90]), (("Bob",), [0, 30, 86]), (("Cy",), [0, 0, 0]), (("Dee",), [0, 2, 1])])
    spots = sorted(line.label_y for line in chart.lines)
    assert all(b - a >= 16 for a, b in pairwise(spots)), spots
    assert all(chart.plot_top - 8 <= spot <= chart.plot_bottom for spot in spots), spots
    far = next(line for line in chart.lines if line.names == ("Ann",))
    assert far.label_y == far.end_y  # a label with room stays at its line's end


# Languages ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_hebrew_pages_are_right_to_left_and_the_switcher_sets_the_language(client):
    html = client.get(reverse("games:scoreboard"), HTTP_ACCEPT_LANGUAGE="he").content.decode()
    assert '<html lang="he" dir="rtl">' in html
    response = client.post(reverse("games:set_language"), {"language": "lt", "next": "/"})
    assert response.status_code == 302
    assert '<html lang="lt" dir="ltr">' in client.get(reverse("games:scoreboard")).content.decode()


@pytest.mark.django_db
def test_a_pagers_arrows_point_outward_in_either_direction(client):
    ann, bob, cy = people("Ann", "Bob", "Cy")
    for _round in range(30):
        finished_match([ann, bob, cy], [100, 0, 0], ann)
    url = reverse("games:player", args=[ann.pk])
    english = client.get(url, {"page": 2}).content.decode()
    hebrew = client.get(url, {"page": 2}, HTTP_ACCEPT_LANGUAGE="he").content.decode()
    assert 'rel="prev">← Previous' in english
    assert 'rel="prev">→ ' in hebrew and 'rel="prev">←' not in hebrew


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/lobby/", "/admin/login/"])
def test_every_page_carries_the_content_security_policy(client, path):
    """Scripts and styles from the site's own files only, and no inline ones."""
    policy = client.get(path)["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "frame-ancestors 'none'" in policy


# Link previews -------------------------------------------------------------------------------


class OpenGraph(HTMLParser):
    """The ``og:`` properties of a page, as a link preview reads them."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: dict[str, str] = {}
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "meta" and (values.get("property") or "").startswith("og:"):
            self.found[values["property"]] = values.get("content") or ""


def preview(client, name: str, *args, **params) -> tuple[str, str]:
    found = OpenGraph(get(client, name, *args, **params)).found
    return found["og:title"], found["og:description"]


@pytest.mark.django_db
def test_every_public_page_has_a_link_preview_that_says_what_it_is(client, ann):
    """A shared /m/CODE/ previewed as a bare "#CODE · gin3": the pages had no og: tags."""
    bob, cy = people("Bob & Co", "Cy")
    finished = finished_match([ann, bob, cy], [104, 40, 10], ann)
    running = running_match(terminal_player("dee", "Dee"))
    handle(terminal_player("eve", "Eve"), "new open", "terminal")
    waiting = Match.objects.get(status=Match.Status.LOBBY)
    rating = PlayerRecord.objects.get(player=ann).rating

    assert preview(client, "match", finished.code) == (
        f"#{finished.code}: Ann 104 · Bob & Co 40 · Cy 10",
        "Ann won this match to 100 points. Every hand replayed, with its deck, once it ends.",
    )
    title, said = preview(client, "match", running.code)
    assert title.startswith(f"#{running.code}: Dee 0 · Bot 1 ") and "hand 1 in play" in said
    title, said = preview(client, "match", waiting.code)
    assert title == f"#{waiting.code}: Eve wait for players" and f"join {waiting.code}" in said
    assert preview(client, "player", ann.pk)[0] == f"Ann: rating {rating}"
    assert f"Ann's rating is {rating}, after 1 finished match (1 won)." in preview(client, "player", ann.pk)[1]
    assert "no finished match yet" in preview(client, "player", terminal_player("new", "Newt").pk)[1]
    title, said = preview(client, "scoreboard")
    assert title == "gin3 scoreboard" and "ranked by rating" in said
    title, said = preview(client, "lobby")
    assert title == "gin3: open matches" and "wait for players" in said
    assert 'content="#' in get(client, "match", finished.code)  # escaped once: "Bob &amp; Co" in the page
    assert "Bob &amp;amp; Co" not in get(client, "match", finished.code)


@pytest.mark.django_db
def test_a_link_preview_is_in_the_readers_language(client, ann):
    finished = finished_match([ann, *people("Bob", "Cy")], [104, 40, 10], ann)
    client.cookies["django_language"] = "lt"
    title, said = preview(client, "match", finished.code)
    assert title == f"#{finished.code}: Ann 104 · Bob 40 · Cy 10"
    assert "won this match" not in said and "Ann" in said
