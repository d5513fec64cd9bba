"""The text protocol's parser (docs/protocol.md): every command, alias and card notation.

Why: every channel (Telegram text and buttons, SMS, the terminal) goes through
``parse``; docs/protocol.md promises that a command keeps its meaning and that bad
input gets one short reply, never a traceback.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.contract.options import MOVE_TIMES, MatchOptions
from games.engine import Card, Take
from games.text.protocol import MAX_REPORT_TEXT, MAX_TEAM_TEXT, Command, ProtocolError, parse


def card(text: str) -> Card:
    return Card.parse(text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("help", "help"),
        ("h", "help"),
        ("?", "help"),
        ("/start", "help"),
        ("bot", "bot"),
        ("leave", "leave"),
        ("status", "status"),
        ("s", "status"),
        ("score", "score"),
        ("scores", "score"),
        ("resign", "resign"),
        ("pass", "pass"),
        ("take", "take"),
        ("draw", "draw"),
        ("accept", "accept"),
    ],
)
def test_commands_without_arguments_and_their_aliases(text, name):
    assert parse(text) == Command(name)


@pytest.mark.parametrize(
    "text", ["draw", "DRAW", "Draw", "/draw", "/DRAW", "/draw@gin3bot", "/Draw@Gin3_Bot", "  draw  "]
)
def test_case_a_leading_slash_and_a_botname_suffix_do_not_matter(text):
    assert parse(text) == Command("draw")


def test_the_full_stop_a_phone_adds_ends_a_command_as_if_it_were_not_there():
    """'Draw.' was answered "I don't know 'Draw.'." though the player typed a command."""
    assert parse("Draw.") == Command("draw")
    assert parse("d 7h!") == parse("d 7h")
    assert parse("#K7Q2 suggest take.") == parse("#K7Q2 suggest take")
    assert parse("team take the 7.").text == "take the 7.", "a message keeps its own punctuation"
    with pytest.raises(ProtocolError, match="Type a command"):
        parse(".")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("discard 7h", "7h"),
        ("d 7h", "7h"),
        ("D 10d", "Td"),
        ("/d@gin3bot Td", "Td"),
        ("discard QS", "Qs"),
        ("discard q♠", "Qs"),
        ("discard A♥", "Ah"),
        ("discard k♦", "Kd"),
        ("discard 2♣", "2c"),
        ("discard 10♣", "Tc"),
        ("discard as", "As"),
    ],
)
def test_cards_in_every_notation(text, expected):
    assert parse(text) == Command("discard", card=card(expected))


@pytest.mark.parametrize("text", ["knock 7h", "k 7h", "KNOCK 7H", "/knock@gin3bot 7♥"])
def test_knock_takes_a_card(text):
    assert parse(text) == Command("knock", card=card("7h"))


@pytest.mark.parametrize("text", ["take Qs", "take q♠", "#K7Q2 take QS"])
def test_take_may_name_the_face_up_card_it_takes(text):
    """A newcomer types the card he sees on the pile; the engine's take needs none."""
    command = parse(text)
    assert (command.name, command.card) == ("take", card("Qs"))
    assert command.action() == Take()


@pytest.mark.parametrize(
    ("text", "reply"),
    [("take 9x", "'9x' is not a card"), ("take Qs Kh", "One card at a time: take CARD"), ("take Qs extra", "'extra'")],
)
def test_take_with_anything_but_one_card_after_it_is_refused(text, reply):
    """take 9x and take Qs Kh said "'take' takes nothing after it", though take Qs works."""
    with pytest.raises(ProtocolError, match=reply):
        parse(text)


@pytest.mark.parametrize(("text", "reply"), [("d 7h 8h", "One card at a time: discard CARD"), ("k Ks 9x", "'9x'")])
def test_two_cards_to_discard_are_refused_with_the_form_not_a_card_he_may_not_hold(text, reply):
    with pytest.raises(ProtocolError, match=reply):
        parse(text)


@pytest.mark.parametrize("text", ["d 7h 8h", "discard 11h", "discard 7x", "d 1h", "d ♠7", "suggest discard"])
def test_a_missing_or_bad_card_is_refused(text):
    with pytest.raises(ProtocolError):
        parse(text)


@pytest.mark.parametrize(("text", "name"), [("knock", "knock"), ("d", "discard")])
def test_a_discard_or_knock_without_its_card_is_left_to_the_service_to_answer_as_the_turn_stands(text, name):
    """Told "Say which card" at his draw, a newcomer named one and was then told to take
    a card first (tests/test_services_refusals.py answers it)."""
    assert parse(text) == Command(name)


def test_a_suggested_discard_without_its_card_is_answered_with_an_example_not_an_order():
    """'Say which card: knock 7h' read as an order to knock 7h, which he may not hold."""
    with pytest.raises(ProtocolError) as refused:
        parse("suggest knock")
    assert str(refused.value) == "Say which card, like: knock 7h"


def test_a_bad_card_is_named_and_cut_short_in_the_reply():
    with pytest.raises(ProtocolError, match="is not a card") as refused:
        parse("discard " + "x" * 40)
    assert len(str(refused.value)) < 80


@pytest.mark.parametrize("text", ["discard 7\u017f", "discard \u212as"])
def test_letters_that_case_fold_into_a_suit_or_a_rank_are_not_cards(text):
    """'ſ' folds to 's' and the Kelvin sign to 'k' under IGNORECASE: refused, not a crash."""
    with pytest.raises(ProtocolError, match="is not a card"):
        parse(text)


@pytest.mark.parametrize(
    ("text", "code", "version"),
    [
        ("#K7Q2 draw", "K7Q2", None),
        ("#k7q2 draw", "K7Q2", None),
        ("#K7Q2@12 draw", "K7Q2", 12),
        ("#K7Q2@0 /draw@gin3bot", "K7Q2", 0),
    ],
)
def test_a_match_selector_names_the_match_and_its_version(text, code, version):
    assert parse(text) == Command("draw", code=code, version=version)


def test_the_selector_goes_with_any_command():
    assert parse("#K7Q2 d 7h") == Command("discard", code="K7Q2", card=card("7h"))
    assert parse("#K7Q2@3 status") == Command("status", code="K7Q2", version=3)


@pytest.mark.parametrize("text", ["#K7 draw", "#K7Q2!! draw", "#K7Q2@x draw", "#K7Q2@² draw", "#K7Q2@-1 draw"])
def test_a_bad_selector_is_refused(text):
    with pytest.raises(ProtocolError):
        parse(text)


def test_a_selector_alone_asks_for_a_command():
    with pytest.raises(ProtocolError, match="Type a command"):
        parse("#K7Q2")


@pytest.mark.parametrize(
    ("text", "options"),
    [
        ("new", MatchOptions()),
        ("/new", MatchOptions()),
        ("new 3d to 150", MatchOptions(move_seconds=MOVE_TIMES["3d"], target=150)),
        ("new gin 20", MatchOptions(gin_bonus=20)),
        ("NEW 5M TO 50 GIN 20", MatchOptions(move_seconds=300, target=50, gin_bonus=20)),
        ("new to 500 7d", MatchOptions(move_seconds=MOVE_TIMES["7d"], target=500)),
        ("new 1h", MatchOptions(move_seconds=3600)),
        ("new 12h", MatchOptions(move_seconds=43200)),
        ("new 1d", MatchOptions(move_seconds=86400)),
    ],
)
def test_new_reads_time_target_and_gin_bonus(text, options):
    assert parse(text) == Command("new", options=options)


@pytest.mark.parametrize(
    "text", ["new to 49", "new to 501", "new gin 30", "new 2d", "new to", "new to ²", "new gin", "new fast"]
)
def test_new_refuses_what_the_options_do_not_allow(text):
    """Targets are 50 to 500 and the gin bonus 25 or 20 (the options table of docs/rules.md)."""
    with pytest.raises(ProtocolError):
        parse(text)


@pytest.mark.parametrize(
    ("text", "named"),
    [("new 2h", "'2h'"), ("new 5m fast", "'fast'"), ("new to abc", "'to abc'"), ("new undercut -1", "'undercut -1'")],
)
def test_new_names_the_word_it_cannot_read(text, named):
    with pytest.raises(ProtocolError, match=f"^new can't read {named}\\. new \\[TIME\\]"):
        parse(text)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("new 5m 1h", "5m or 1h?"),
        ("new to 100 3d to 200", "to 100 or to 200?"),
        ("new gin 20 gin 25", "gin 20 or gin 25?"),
    ],
)
def test_new_refuses_an_option_given_twice_rather_than_pick_one(text, said):
    with pytest.raises(ProtocolError, match=f"^{said.replace('?', '[?]')} Give it once[.]$"):
        parse(text)


def test_new_takes_open_and_anydiscard_once_or_twice():
    assert parse("new open anydiscard open") == Command(
        "new", options=MatchOptions(is_open=True, may_discard_taken=True)
    )


@pytest.mark.parametrize("text", ["join K7Q2", "join k7q2", "join #K7Q2", "/join@gin3bot K7Q2"])
def test_join_takes_a_code(text):
    assert parse(text) == Command("join", text="K7Q2")


@pytest.mark.parametrize("text", ["join", "join K7", "join K7Q2 X", "join K-7Q"])
def test_join_without_a_good_code_is_refused(text):
    with pytest.raises(ProtocolError):
        parse(text)


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("suggest take", Command("take")),
        ("suggest pass", Command("pass")),
        ("suggest /draw", Command("draw")),
        ("suggest d 7h", Command("discard", card=card("7h"))),
        ("suggest knock 10♦", Command("knock", card=card("Td"))),
    ],
)
def test_suggest_carries_a_play_command(text, suggestion):
    assert parse(text) == Command("suggest", suggestion=suggestion)


def test_a_suggestion_button_carries_the_selector_in_front():
    command = parse("#K7Q2@4 suggest discard 7h")
    assert (command.code, command.version) == ("K7Q2", 4)
    assert command.as_text() == "suggest discard 7h"


def test_a_bare_suggest_is_left_to_the_service_which_knows_the_moves_to_offer():
    assert parse("suggest") == Command("suggest")


@pytest.mark.parametrize("text", ["suggest status", "suggest suggest draw", "suggest #K7Q2 draw"])
def test_only_play_commands_can_be_suggested(text):
    with pytest.raises(ProtocolError):
        parse(text)


def test_deeply_nested_suggest_is_refused_not_a_recursion_error():
    """A Telegram message of 4096 characters could nest 500 of them."""
    with pytest.raises(ProtocolError):
        parse("suggest " * 2000 + "draw")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("team take the 7", "take the 7"),
        ("/team@gin3bot keep  the   spades", "keep  the   spades"),
        ("#K7Q2 team go for gin", "go for gin"),
        ("#K7Q2@3 team hi", "hi"),
        ("team #1 priority: hearts", "#1 priority: hearts"),
    ],
)
def test_team_keeps_the_whole_message_after_the_command(text, message):
    assert parse(text).text == message


def test_team_without_a_message_is_refused():
    with pytest.raises(ProtocolError):
        parse("#K7Q2 team")


@pytest.mark.parametrize(("command", "limit"), [("team", MAX_TEAM_TEXT), ("report", MAX_REPORT_TEXT)])
def test_a_message_over_its_limit_is_refused_whole_not_cut(command, limit):
    """Cut, it would reach his partner (or the moderators) other than he wrote it."""
    assert parse(f"{command} " + "a" * limit).text == "a" * limit
    with pytest.raises(ProtocolError, match=f"at most {limit} characters. Nothing was sent"):
        parse(f"{command} " + "a" * (limit + 1))


@pytest.mark.parametrize("code", ["en", "mk", "he", "lt", "mr", "ms", "EN"])
def test_lang_takes_the_six_languages(code):
    assert parse(f"lang {code}") == Command("lang", text=code.lower())


@pytest.mark.parametrize("text", ["lang", "lang fr", "lang en mk"])
def test_lang_refuses_other_languages(text):
    with pytest.raises(ProtocolError, match="Languages"):
        parse(text)


@pytest.mark.parametrize("text", ["draw now", "status please", "help me"])
def test_commands_without_arguments_refuse_one(text):
    with pytest.raises(ProtocolError, match="takes nothing"):
        parse(text)


@pytest.mark.parametrize("word", ["STOP", "stop", "Quit", "END", "cancel", "UNSUBSCRIBE"])
def test_opt_out_words_are_never_commands(word):
    with pytest.raises(ProtocolError, match="opt-out"):
        parse(word)


@pytest.mark.parametrize("text", ["", "   ", "hello", "drwa", "/", "@gin3bot", "💩"])
def test_anything_else_gets_a_short_reason(text):
    with pytest.raises(ProtocolError) as refused:
        parse(text)
    assert 0 < len(str(refused.value)) <= 120


def test_an_unknown_word_is_echoed_cut_short():
    with pytest.raises(ProtocolError, match="I don't know") as refused:
        parse("x" * 500)
    assert len(str(refused.value)) < 80


def test_as_text_is_what_a_player_would_type():
    assert parse("#K7Q2@3 D 10♦").as_text() == "discard Td"
    assert parse("suggest k 7h").as_text() == "suggest knock 7h"
    assert parse("TEAM hi there").as_text() == "team hi there"


WORDS = st.sampled_from(
    [
        "help", "new", "join", "bot", "leave", "status", "pass", "take", "draw", "discard", "d", "knock",
        "suggest", "accept", "team", "score", "resign", "lang", "to", "gin", "20", "150", "3d", "7h", "10d",
        "Td", "q♠", "#K7Q2", "#K7Q2@3", "#k7q2@", "@", "/", "/draw@bot", "en", "stop", "²", "ſ", "\u212a",
    ]
)  # fmt: skip
TEXTS = st.text() | st.lists(WORDS | st.text(max_size=4), max_size=8).map(" ".join)


@given(TEXTS)
def test_parse_returns_a_command_or_raises_protocol_error_and_nothing_else(text):
    try:
        command = parse(text)
    except ProtocolError as refused:
        assert str(refused)
    else:
        assert isinstance(command, Command)
        assert parse(command.as_text()).as_text() == command.as_text()


# The lobby, rematches, time off, zones and reports -------------------------------------------


@pytest.mark.parametrize(("text", "name"), [("open", "open"), ("/open", "open"), ("again", "again"), ("back", "back")])
def test_open_again_and_back_take_nothing(text, name):
    assert parse(text) == Command(name)
    with pytest.raises(ProtocolError, match="takes nothing after it"):
        parse(f"{text} now")


@pytest.mark.parametrize(
    ("text", "seconds"), [("join any", None), ("JOIN ANY", None), ("join any 1h", 3600), ("/join any 7D", 604800)]
)
def test_join_any_takes_an_optional_move_time(text, seconds):
    assert parse(text) == Command("join", text="any", number=seconds)


@pytest.mark.parametrize("text", ["join any 2h", "join any 1h now", "join any to"])
def test_join_any_with_something_else_says_which_times_there_are(text):
    with pytest.raises(ProtocolError, match=r"\(join any 1h\)\. TIME is one of: 5m 15m 1h 12h 1d 3d 7d"):
        parse(text)


def test_new_open_lists_the_match():
    assert parse("new 3d open").options == MatchOptions(move_seconds=MOVE_TIMES["3d"], is_open=True)


@pytest.mark.parametrize(
    ("text", "seconds"), [("away", None), ("away 3d", 3 * 86400), ("away 3", 3 * 86400), ("away 12H", 12 * 3600)]
)
def test_away_takes_days_or_hours(text, seconds):
    assert parse(text) == Command("away", number=seconds)


@pytest.mark.parametrize("text", ["away 0", "away 0h", "away 367d", "away 3 days", "away -1d", "away 1.5d", "away 2w"])
def test_away_refuses_what_is_no_time_off(text):
    with pytest.raises(ProtocolError, match="Time off in days or hours: away 3d, away 12h"):
        parse(text)


@pytest.mark.parametrize(
    ("text", "hours"),
    [("quiet 23-07", "23-07"), ("quiet 23:00-07:00", "23-07"), ("quiet 1-6", "01-06"), ("quiet 22-24", "22-00")],
)
def test_quiet_takes_two_hours_of_the_day(text, hours):
    assert parse(text) == Command("quiet", text=hours)


@pytest.mark.parametrize(("text", "said"), [("quiet", ""), ("quiet off", "off"), ("QUIET OFF", "off")])
def test_quiet_alone_shows_them_and_off_ends_them(text, said):
    assert parse(text) == Command("quiet", text=said)


@pytest.mark.parametrize("text", ["quiet 7-7", "quiet 23", "quiet 25-07", "quiet 23-07 please", "quiet 23:30-07"])
def test_quiet_refuses_what_are_no_quiet_hours(text):
    with pytest.raises(ProtocolError, match=r"quiet 23-07\. quiet off ends them\."):
        parse(text)


@pytest.mark.parametrize(("text", "hours"), [("quiet 00-23", 23), ("quiet 20-09", 13), ("quiet 8-7", 23)])
def test_quiet_hours_longer_than_12_hours_are_refused_so_that_matches_go_on(text, hours):
    """Quiet hours of 00-23 would make a 5 minute clock 23 hours a turn."""
    with pytest.raises(ProtocolError) as refusal:
        parse(text)
    assert str(refusal.value) == (
        f"Quiet hours are 12 hours at most, so that your matches go on: those are {hours}. For example: quiet 23-07."
    )


def test_quiet_hours_of_12_hours_are_taken():
    assert parse("quiet 20-08") == Command("quiet", text="20-08")


@pytest.mark.parametrize(
    ("text", "zone"),
    [("tz Europe/Skopje", "Europe/Skopje"), ("tz europe/skopje", "Europe/Skopje"), ("tz utc", "UTC"), ("tz", "")],
)
def test_tz_names_a_zone_as_the_tz_database_spells_it(text, zone):
    assert parse(text) == Command("tz", text=zone)


def test_timezone_is_tz():
    assert parse("timezone Asia/Tokyo") == Command("tz", text="Asia/Tokyo")


@pytest.mark.parametrize("text", ["tz Mars/Olympus", "tz ../../etc/passwd", "tz Europe/Skopje now", "tz +02:00"])
def test_tz_refuses_a_zone_it_does_not_know_with_an_example(text):
    with pytest.raises(ProtocolError, match=r"is not a time zone I know. Name one like this: tz Europe/Skopje"):
        parse(text)


def test_report_keeps_the_whole_message():
    assert parse("#K7Q2 report  Bob  insults me").text == "Bob  insults me"
    with pytest.raises(ProtocolError, match="report TEXT"):
        parse("report")
