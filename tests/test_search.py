"""The hard level and the advice built on it (games/engine/search.py, games/engine/advice.py).

The search's budget here is a few milliseconds a move: enough to test that it
keeps the rules and sees only what a player may see, not how well it plays
(``make bench-bots`` measures that).
"""

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import DECK, Discard, Draw, Knock, Options, Pass, Phase, Role, Take, deal, parse_action, parse_cards
from games.engine.advice import Appraisal, Reason, appraise, objection, reason_for
from games.engine.bots import BotView, RandomBot, StrongBot, bot_view
from games.engine.cards import mask_of
from games.engine.levels import LEVELS, STRATEGIES, level_of, make_strategy
from games.engine.melds import deadwood, knock_discards
from games.engine.search import (
    MATCH_BONUS,
    HardBot,
    Utility,
    _Playout,
    _Rules,
    _sample_world,
    candidates,
    evaluate,
    knock_points,
    opponent_weights,
    preferred,
)
from games.services.write.advice import ADVICE_MARGIN

QUICK = 0.005


def card(text):
    (one,) = parse_cards(text)
    return one


def cards(text):
    return tuple(parse_cards(text))


def states(seed, hands, options=None):
    """Every state (hand, log so far) of ``hands`` hands played by random bots."""
    rng = random.Random(seed)
    mover = RandomBot(rng)
    for _ in range(hands):
        hand, log = deal(rng.sample(DECK, 52), options), []
        while not hand.is_over:
            yield hand, log
            hand, events = hand.apply(mover.choose(bot_view(hand, hand.to_move, log)))
            log = log + events


def hide(hand, role, log):
    """The same hand with the opponent's hidden cards swapped for stock cards and
    the stock reversed: nothing the player may know differs (R4.4). None when
    the opponent holds no hidden card to swap."""
    public = {e.card for e in log if e.kind == "take" and e.role is role.opponent}
    held = list(hand.cards_of(role.opponent))
    stock = list(hand.stock)
    swapped = False
    for index, held_card in enumerate(held):
        if held_card not in public and held_card != hand.taken and stock:
            held[index], stock[0] = stock[0], held_card
            stock = stock[1:] + stock[:1]
            swapped = True
    if not swapped:
        return None
    return replace(hand, **{role.opponent.value: tuple(held), "stock": tuple(reversed(stock))})


def known_view(mine, his, stock_size=20, score=0, opponent_score=0):
    """A view, the box to discard, in which every card the opponent holds is
    known: he took them all from the pile (R6.1). The stock is the first
    ``stock_size`` of the other cards, the pile the rest, so the search has
    nothing to guess about his hand."""
    mine, his = cards(mine), cards(his)
    others = [c for c in DECK if c not in mine and c not in his]
    legal = [Discard(c) for c in mine] + [Knock(c) for c in knock_discards(mine)]
    return BotView(
        role=Role.BOX,
        phase=Phase.DISCARD,
        cards=mine,
        pile=tuple(others[stock_size:]),
        stock_size=stock_size,
        legal_actions=tuple(legal),
        options=Options(),
        turns=10,
        opponent_holds=frozenset(his),
        score=score,
        opponent_score=opponent_score,
    )


# Levels -------------------------------------------------------------------------------


def test_the_levels_are_easy_normal_and_hard_and_the_old_names_still_work():
    assert LEVELS == ("easy", "normal", "hard")
    assert {"simple", "strong", "easy", "normal", "hard"} <= set(STRATEGIES)
    assert level_of("simple") == "easy" and level_of("strong") == "normal" and level_of("hard") == "hard"
    assert type(make_strategy("easy", random.Random(0))) is type(make_strategy("simple", random.Random(0)))
    assert type(make_strategy("normal", random.Random(0))) is type(make_strategy("strong", random.Random(0)))
    assert isinstance(make_strategy("hard", random.Random(0)), HardBot)


def test_the_budget_is_a_setting_of_the_hard_level():
    assert make_strategy("hard", random.Random(0), budget=0.05).budget == 0.05


# Legal, deterministic and blind ------------------------------------------------------------


@pytest.mark.parametrize("options", [Options(), Options(may_discard_taken=True)], ids=["R6.2", "no-R6.2"])
def test_hard_only_ever_chooses_a_legal_action(options):
    bot = HardBot(random.Random(1), budget=QUICK)
    for hand, log in states(seed=4, hands=3, options=options):
        action = bot.choose(bot_view(hand, hand.to_move, log))
        assert action in hand.legal_actions(), f"hard chose {action} in {hand}"


def test_hard_is_deterministic_for_a_seed():
    def game(seed):
        rng = random.Random(seed)
        hand, log, actions = deal(random.Random(11).sample(DECK, 52)), [], []
        bot = HardBot(rng, budget=QUICK)
        while not hand.is_over:
            action = bot.choose(bot_view(hand, hand.to_move, log))
            hand, events = hand.apply(action)
            log += events
            actions.append(action)
        return actions, hand.result

    assert game(3) == game(3)


def test_hard_never_sees_a_hidden_card_r4_4():
    """Two hands that differ only in the opponent's hidden cards and the order of
    the stock give the same view, so the same choice and values for one seed."""
    checked = 0
    for hand, log in states(seed=6, hands=1):  # 88 positions of both roles
        role = hand.to_move
        other = hide(hand, role, log)
        if other is None or len(hand.legal_actions()) == 1:
            continue
        view, other_view = bot_view(hand, role, log), bot_view(other, role, log)
        assert view == other_view
        first = HardBot(random.Random(9), budget=QUICK).choose(view)
        assert first == HardBot(random.Random(9), budget=QUICK).choose(other_view)
        assert appraise(view, rng=random.Random(2), budget=QUICK) == appraise(
            other_view, rng=random.Random(2), budget=QUICK
        )
        checked += 1
    assert checked > 20


# The search ---------------------------------------------------------------------------------


def test_r8_4_a_knock_is_scored_by_the_rules_settlement_undercut_included():
    kept = mask_of(parse_cards("As 2s 3s 4h 5h 6h 7d 8d 9d 5c"))
    defender = mask_of(parse_cards("Jc Qc Kc 8s 8h 8c Ts Th Tc 5s"))
    assert knock_points(kept, defender, _rules()) == -10


def test_r8_3_a_gin_scores_the_bonus_and_the_defenders_count():
    kept = mask_of(parse_cards("As 2s 3s 4h 5h 6h 7d 8d 9d Td"))
    defender = mask_of(parse_cards("Jc Qc Kc 8s 8h 8c Ts 5c 2d Ah"))
    assert knock_points(kept, defender, _rules()) == 43


def _rules():
    from games.engine.search import _Rules

    return _Rules(gin_bonus=25, undercut_bonus=10, may_discard_taken=False)


def test_r8_4_hard_does_not_knock_into_a_known_undercut():
    """He holds three melds and a 2 (count 2): a knock keeping 5c would be
    undercut for 10 + 3, one keeping 9c for 10 + 7 (R8.4). The search values
    both exactly, and plays on."""
    view = known_view(mine="As 2s 3s 4h 5h 6h 7d 8d 9d 5c 9c", his="Jc Qc Kc 8s 8h 8c Ts Th Tc 2h")
    evaluation = evaluate(view, random.Random(0), budget=QUICK)
    assert evaluation.values[Knock(card("9c"))] == pytest.approx(-13)
    assert evaluation.values[Knock(card("5c"))] == pytest.approx(-17)
    assert not isinstance(evaluation.choice, Knock)
    appraisal = appraise(view, rng=random.Random(0), budget=QUICK)
    assert appraisal.reason is Reason.UNDERCUT_RISK


def test_r8_2_hard_knocks_when_his_count_is_high_and_the_stock_nearly_gone():
    """Three cards left: after his turn the hand is drawn (R9.1), so a knock
    that wins now is worth more than anything playing on can bring."""
    view = known_view(mine="As 2s 3s 4h 5h 6h 7d 8d 9d 2c Kc", his="Jc Qh Ks 8s 7h 9c Ts Th 4c 3d", stock_size=3)
    appraisal = appraise(view, rng=random.Random(0), budget=QUICK)
    assert appraisal.choice == Knock(card("Kc"))
    assert appraisal.values[Knock(card("Kc"))] > 0
    assert appraisal.reason is Reason.KNOCK_NOW


def test_r8_3_hard_goes_gin_when_it_can():
    his = "Js Qs Ks 8c 7h 9c Ts 4c 3d 2h"
    view = known_view(mine="As 2s 3s 4h 5h 6h 7d 8d 9d Td Kc", his=his)
    appraisal = appraise(view, rng=random.Random(0), budget=QUICK)
    assert appraisal.choice == Knock(card("Kc"))
    assert appraisal.reason is Reason.GIN
    assert appraisal.values[Knock(card("Kc"))] == 25 + deadwood(parse_cards(his))  # R8.3: no layoffs after gin


def test_r10_1_the_points_past_the_target_count_nothing_and_reaching_it_counts_more():
    utility = Utility.of(known_view("As 2s 3s 4h 5h 6h 7d 8d 9d 2c Kc", "Jc", score=90, opponent_score=95))
    assert utility(5) == 5
    assert utility(10) == utility(40) == 10 + MATCH_BONUS
    assert utility(-4) == -4
    assert utility(-5) == utility(-30) == -5 - MATCH_BONUS


def test_a_neighbour_of_a_card_he_took_is_likelier_his_and_one_of_a_rank_he_threw_less():
    view = replace(
        known_view("As 2s 3s 4h 5h 6h 7d 8d 9d 2c Kc", "Jc"),
        opponent_holds=frozenset(cards("Jc")),
        opponent_discards=cards("7h"),
    )
    unseen = mask_of(parse_cards("Qc 7s 4d"))
    weights = dict(opponent_weights(view, unseen))
    assert weights[card("Qc")] > weights[card("4d")] > weights[card("7s")]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=11, max_size=11, unique=True), st.integers(-1, 10), st.booleans())
def test_r2_4_the_playouts_discard_leaves_the_lowest_count_the_highest_card_among_equals(hand, taken_at, anydiscard):
    """The playouts' discard, which stops early, is the one a look at every
    card finds: the lowest count left (R2.4), then the most points, then the
    lowest card; never the card just taken from the pile (R6.2) but with
    ``anydiscard``."""
    mask = sum(1 << index for index in hand)
    taken = -1 if taken_at < 0 else hand[taken_at]
    rules = _Rules(gin_bonus=25, undercut_bonus=10, may_discard_taken=anydiscard)
    playout = _Playout([mask, 0], [], [], 0, rules)
    allowed = [index for index in hand if anydiscard or index != taken]
    best = min(allowed, key=lambda index: (deadwood([DECK[i] for i in hand if i != index]), -DECK[index].points, index))
    assert playout.choose_discard(0, taken) == (best, deadwood([DECK[i] for i in hand if i != best]))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 12))
def test_r2_4_a_dealt_opponent_gives_back_what_leaves_him_the_lowest_count(seed, draws):
    """He is dealt his ten and ``draws`` more, by weight, and gives back one at a
    time the card that leaves the lowest count (R2.4), the most points among
    equals: the world is that of a look at every card at each step."""
    rng = random.Random(seed)
    weights = [(index, rng.choice((0.5, 0.7, 1.0, 2.0))) for index in rng.sample(range(52), 40)]
    held, stock = _sample_world(weights, 10, draws, random.Random(seed))
    keys = random.Random(seed)
    keyed = sorted(((keys.random() ** (1.0 / weight), index) for index, weight in weights), reverse=True)
    dealt = [index for _, index in keyed[: 10 + draws]]

    def left_and_points(index):
        return deadwood([DECK[i] for i in dealt if i != index]), -DECK[index].points

    for _ in range(draws):
        dealt.remove(min(dealt, key=left_and_points))
    assert held == sum(1 << index for index in dealt)
    assert sorted(stock) == sorted(index for index, _ in weights if index not in dealt)


# Advice -------------------------------------------------------------------------------------


def _every_view(seed, hands):
    for hand, log in states(seed=seed, hands=hands):
        yield bot_view(hand, hand.to_move, log, {hand.to_move: 40, hand.to_move.opponent: 70})


def normal_choice(view):
    """The normal level's choice, which the hard level keeps unless the search is sure of better."""
    return candidates(view, StrongBot(random.Random(0)))[0]


def test_the_search_overrules_the_normal_levels_choice_only_when_clearly_better():
    """Two discards a fraction of a point apart are noise to a few dozen worlds: chosen
    on it, the hard level gave away the normal level's judgement of the cards."""
    normal, close, far = Discard(card("Kd")), Discard(card("Qd")), Discard(card("Jd"))
    base = [0.0, 8.0, -8.0, 4.0, -4.0, 0.0] * 5
    results = {normal: base, close: [value + noise for value, noise in zip(base, [1.0, -0.8] * 15, strict=True)]}
    assert preferred(results, [normal, close]) == normal  # a mean gain of 0.1, the spread of 0.9
    results[far] = [value + 1.0 for value in base]  # a point better in every world
    assert preferred(results, [normal, close, far]) == far


def test_appraise_values_every_legal_action_and_its_choice_is_hards():
    for view in list(_every_view(seed=8, hands=2))[::3]:
        appraisal = appraise(view, rng=random.Random(1), budget=QUICK)
        assert isinstance(appraisal, Appraisal)
        assert set(appraisal.values) == set(view.legal_actions)
        assert appraisal.choice in appraisal.values
        assert appraisal.values[appraisal.choice] >= appraisal.values[normal_choice(view)]
        assert isinstance(appraisal.reason, Reason)


@pytest.mark.parametrize("level", ["easy", "normal", "simple", "strong"])
def test_appraise_for_another_level_gives_that_levels_own_move(level):
    for view in list(_every_view(seed=12, hands=1))[::4]:
        appraisal = appraise(view, level, rng=random.Random(1), budget=QUICK)
        assert appraisal.choice == make_strategy(level, random.Random(1)).choose(view)
        assert set(appraisal.values) == set(view.legal_actions)


def test_a_suggestion_that_breaks_a_run_is_seen_to_cost_more_than_a_computer_captain_accepts():
    """A newcomer suggested discarding 8d from his computer captain's run 7d 8d 9d, and it
    was played: valued in the first few deals only, the move came within ``ADVICE_MARGIN``
    of the captain's own choice for one seed in four. Weighed in every deal, it is seen to
    cost what breaking a run costs (R2.2)."""
    mine = cards("7d 8d 9d 2s 6s Qh 2d Jd 9c Qc Kc")
    others = [c for c in DECK if c not in mine]
    random.Random(1).shuffle(others)
    view = BotView(
        role=Role.CAPTAIN,
        phase=Phase.DISCARD,
        cards=mine,
        pile=tuple(others[:4]),
        stock_size=25,
        legal_actions=tuple(Discard(c) for c in mine),
        options=Options(),
        turns=8,
        opponent_discards=tuple(others[1:3]),
    )
    breaks_the_run = Discard(card("8d"))
    for seed in range(12, 24):
        appraisal = appraise(view, "hard", random.Random(seed), weigh=[breaks_the_run])
        assert appraisal.values[appraisal.choice] - appraisal.values[breaks_the_run] > ADVICE_MARGIN, seed


def position(seed: int, moves: int):
    """The view of the player to move after ``moves`` events of the hand dealt from ``seed``,
    both players playing as the normal level does."""
    hand, log = deal(random.Random(seed).sample(DECK, 52)), []
    bot = StrongBot(random.Random(seed))
    while len(log) < moves:
        hand, events = hand.apply(bot.choose(bot_view(hand, hand.to_move, log)))
        log = log + events
    return bot_view(hand, hand.to_move, log)


@pytest.mark.parametrize(
    ("seed", "moves", "played"), [(3, 17, "discard Kd"), (12, 11, "discard 5h"), (15, 15, "discard Jh")]
)
def test_valuing_the_move_he_played_does_not_change_hards_choice(seed, moves, played):
    """A review values the move a person played beside hard's choice, and must name the
    move a hint named in that position: here, when the played move's playouts counted
    against the budget, fewer worlds were tried and hard chose another move."""
    view = position(seed, moves)
    rng_seed = f"{seed}:{moves}"
    alone = appraise(view, rng=random.Random(rng_seed), budget=0.1)
    beside = appraise(view, rng=random.Random(rng_seed), budget=0.1, weigh=[parse_action(played)])
    assert beside.choice == alone.choice
    assert beside.values[alone.choice] == alone.values[alone.choice]


@pytest.mark.parametrize(
    ("top", "reason"),
    [("Ah", Reason.TAKE_LOW_CARD), ("5s", Reason.TAKE_BUILDS_MELD), ("7c", Reason.TAKE_BUILDS_MELD)],
)
def test_a_take_of_a_card_that_melds_with_nothing_held_is_said_to_be_low_not_to_build_a_meld(top, reason):
    """A newcomer was told a take of Ah 'builds towards a meld' while he held no ace, 2h
    or 3h: it only replaces a higher card. 5s is next to his 6s, 7c of the rank of his 7h."""
    mine = cards("3s 6s 8s 6d 2c 4c 7h 9c Kc Qh")
    view = BotView(
        role=Role.CAPTAIN,
        phase=Phase.DRAW,
        cards=mine,
        pile=(card("Qd"), card(top)),
        stock_size=25,
        legal_actions=(Take(), Draw()),
        options=Options(),
        turns=6,
    )
    assert reason_for(view, Take(), {Take(): 1.0, Draw(): 0.0}) == (reason, None)


def test_a_discard_kept_from_feeding_the_opponent_names_the_card_it_kept():
    """'the lower discard would help what the opponent collects' did not say which card:
    Kh, the lower count's discard, would give him the king he needs for his set."""
    view = known_view(mine="Qh Qd Qc 4s 5s 6s 2d 9c 8h Kh 3h", his="Ks Kc")
    values = {Discard(card("9c")): 1.0, Discard(card("Kh")): 0.0, Discard(card("8h")): -0.5}
    assert reason_for(view, Discard(card("9c")), values) == (Reason.AVOIDS_FEEDING, card("Kh"))


def test_a_discard_among_cards_worth_as_much_is_explained_by_the_chances_the_hand_keeps():
    """'discard Tc, because no unmatched card is worth more' told a learner holding Kh, Kc
    and Jc nothing: they are worth as much. Throwing Tc keeps the pair of kings and the
    gap Qc between Jc and Kc; a card already on the pile is no chance."""

    def reasons(pile: str) -> dict[str, Reason]:
        mine = cards("2s 3s 4s 7h 7d 7c Kh Kc Jc Tc 9d")
        view = BotView(
            role=Role.CAPTAIN,
            phase=Phase.DISCARD,
            cards=mine,
            pile=cards(pile),
            stock_size=25,
            legal_actions=tuple(Discard(c) for c in mine),
            options=Options(),
            turns=4,
        )
        values = {Discard(c): 0.0 for c in mine}
        return {name: reason_for(view, Discard(card(name)), values)[0] for name in ("Kh", "Jc", "Tc")}

    assert reasons("5h") == {"Kh": Reason.SHEDS_DEADWOOD, "Jc": Reason.SHEDS_DEADWOOD, "Tc": Reason.KEEPS_CHANCES}
    assert reasons("Qc 9c 8c")["Jc"] is Reason.KEEPS_CHANCES, "with Qc gone, Jc and Kc make no run"


def test_a_declined_discard_of_a_melded_card_is_said_to_break_a_meld():
    """'Not discard Qd but discard Js: it throws the costliest unmatched card' told a
    newcomer why the captain's choice, not that Qd was in his set of queens (R2.1)."""
    view = known_view(mine="Qh Qd Qc 4s 5s 6s 2d 9c Js Kh 3h", his="Ah")
    assert objection(view, Discard(card("Qd"))) is Reason.BREAKS_MELD
    assert objection(view, Knock(card("5s"))) is Reason.BREAKS_MELD
    assert objection(view, Discard(card("Js"))) is None
    assert objection(view, Take()) is None


def test_a_declined_discard_that_feeds_the_opponent_is_said_to_feed_him():
    """'Not discard 9c but discard Kh: discarding 5d would leave a lower count but help what
    the opponent collects' explained with a third card; the sitter had suggested the
    queen of spades, which goes with the queens he took from the pile."""
    view = known_view(mine="4s 5s 6s 2d 9c Js Kh 3h 8d 9d Qs", his="Qh Qd")
    assert objection(view, Discard(card("Qs"))) is Reason.FEEDS_OPPONENT
    assert objection(view, Discard(card("Js"))) is None, "the jack of spades goes with nothing he took"


def test_appraise_repeats_for_a_seed_and_needs_none():
    view = next(_every_view(seed=3, hands=1))
    assert appraise(view, budget=QUICK) == appraise(view, budget=QUICK)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 40))
def test_property_hard_appraisal_is_legal_and_never_below_the_normal_levels_choice(seed, steps):
    rng = random.Random(seed)
    hand, log = deal(rng.sample(DECK, 52)), []
    mover = RandomBot(rng)
    for _ in range(steps):
        if hand.is_over:
            break
        hand, events = hand.apply(mover.choose(bot_view(hand, hand.to_move, log)))
        log += events
    if hand.is_over:
        return
    view = bot_view(hand, hand.to_move, log)
    appraisal = appraise(view, rng=random.Random(seed), budget=QUICK)
    assert appraisal.choice in hand.legal_actions()
    assert appraisal.values[appraisal.choice] >= appraisal.values[normal_choice(view)]


def test_a_single_legal_action_is_played_at_once():
    hand = deal(random.Random(2).sample(DECK, 52))
    hand, _ = hand.apply(Pass())
    hand, _ = hand.apply(Pass())  # R5.4: the captain must draw
    view = bot_view(hand, hand.to_move)
    assert view.legal_actions == (Draw(),)
    assert HardBot(random.Random(0)).choose(view) == Draw()
