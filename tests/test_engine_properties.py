"""Properties of the engine over many hands and games (R2.4, R4, R7, R8, R3.4, R10)."""

import copy
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    DECK,
    Discard,
    Draw,
    Game,
    IllegalAction,
    Knock,
    Options,
    Pass,
    Phase,
    Role,
    Roles,
    Take,
    best_arrangements,
    deadwood,
    deal,
    is_meld,
    replay,
    settle,
)
from games.engine.cards import mask_of
from games.engine.errors import CODES
from games.engine.hand import MAX_ACTIONS, MAX_TURNS
from games.engine.melds import melds_in
from games.engine.scoring import knock_score

EXAMPLES = settings(max_examples=150, deadline=None)
FEW_EXAMPLES = settings(max_examples=60, deadline=None)

card_lists = st.lists(st.sampled_from(DECK), unique=True, max_size=13)
options = st.builds(
    Options,
    gin_bonus=st.sampled_from((25, 20)),
    undercut_bonus=st.integers(0, 25),
    target=st.integers(50, 200),
    may_discard_taken=st.booleans(),
)


def shuffled(seed):
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return deck


# R2.4: deadwood and arrangements ---------------------------------------------------


@EXAMPLES
@given(card_lists, st.randoms(use_true_random=False))
def test_r2_4_deadwood_does_not_depend_on_card_order(cards, rng):
    other = list(cards)
    rng.shuffle(other)
    assert deadwood(other) == deadwood(cards)


def meld_rich_cards(rng, size):
    """Cards that make melds, often several competing for the same cards."""
    deck_mask = (1 << 52) - 1
    hand = 0
    while hand.bit_count() < size:
        pool = [meld for meld in melds_in(deck_mask & ~hand)] if rng.random() < 0.6 else []
        if pool:
            meld = rng.choice(pool)
            if (hand | meld).bit_count() <= size:
                hand |= meld
                continue
        hand |= 1 << rng.choice([i for i in range(52) if not hand >> i & 1])
    return [card for card in DECK if hand >> card & 1]


hands = st.one_of(
    card_lists,
    st.builds(meld_rich_cards, st.randoms(use_true_random=False), st.integers(3, 13)),
)


@EXAMPLES
@given(hands)
def test_r2_4_every_best_arrangement_is_legal_and_has_the_minimum_count(cards):
    arrangements = best_arrangements(cards)
    assert arrangements
    for arrangement in arrangements:
        melded = [card for meld in arrangement.melds for card in meld.cards]
        assert all(is_meld(meld.cards) for meld in arrangement.melds)
        assert len(melded) == len(set(melded)), "R2.3: a card is in one meld only"
        assert sorted(melded + list(arrangement.deadwood)) == sorted(cards)
        assert arrangement.count == deadwood(cards) == sum(card.points for card in arrangement.deadwood)
    assert len({str(arrangement) for arrangement in arrangements}) == len(arrangements)


# Random play ---------------------------------------------------------------------


def choose(hand, rng):
    """A plausible move: keep the lowest count, knock most of the time it may."""
    actions = hand.legal_actions()
    if hand.phase is not Phase.DISCARD:
        return rng.choice(actions)
    discards = [action for action in actions if isinstance(action, Discard)]
    knocks = [action for action in actions if isinstance(action, Knock)]
    if knocks and rng.random() < 0.6:
        if rng.random() < 0.5:
            return min(knocks, key=lambda action: hand.count_after_discard(action.card))
        return rng.choice(knocks)
    if rng.random() < 0.2:
        return rng.choice(discards)
    return min(discards, key=lambda action: (hand.count_after_discard(action.card), rng.random()))


def play_out(deck, rng, options=None):
    """Every hand reached from the deal, and the actions between them."""
    hand = deal(deck, options)
    hands, actions = [hand], []
    while not hand.is_over:
        action = choose(hand, rng)
        hand, _ = hand.apply(action)
        hands.append(hand)
        actions.append(action)
    return hands, actions


def all_actions(hand):
    held = hand.cards_of(hand.to_move)
    return [Pass(), Take(), Draw()] + [kind(card) for card in held for kind in (Discard, Knock)]


@FEW_EXAMPLES
@given(st.integers(0, 2**32), options)
def test_r1_1_all_52_cards_are_accounted_for_through_play(seed, options):
    hands, _ = play_out(shuffled(seed), random.Random(seed), options)
    for hand in hands:
        cards = [*hand.box, *hand.captain, *hand.stock, *hand.pile]
        assert sorted(cards) == sorted(DECK)
        assert sorted(hand.deck) == sorted(DECK)
        mover = len(hand.cards_of(hand.to_move))
        other = len(hand.cards_of(hand.to_move.opponent))
        assert (mover, other) == ((11, 10) if hand.phase is Phase.DISCARD else (10, 10))
        assert len(hand.stock) >= 2


@FEW_EXAMPLES
@given(st.integers(0, 2**32), options)
def test_replay_reproduces_every_state_reached(seed, options):
    deck = shuffled(seed)
    hands, actions = play_out(deck, random.Random(seed), options)
    for step, hand in enumerate(hands):
        assert replay(deck, actions[:step], options) == hand


@FEW_EXAMPLES
@given(st.integers(0, 2**32), options)
def test_legal_actions_apply_and_every_other_action_is_refused_leaving_the_hand_unchanged(seed, options):
    hands, _ = play_out(shuffled(seed), random.Random(seed), options)
    for hand in hands[:-1]:
        legal = hand.legal_actions()
        before = copy.deepcopy(hand)
        for action in all_actions(hand):
            if action in legal:
                hand.apply(action)
            else:
                try:
                    hand.apply(action)
                except IllegalAction as error:
                    assert error.rule.startswith(("R5", "R6", "R7"))
                    assert error.code in CODES
                else:
                    raise AssertionError(f"{action} was allowed but is not in {legal}")
            assert hand == before


@FEW_EXAMPLES
@given(st.integers(0, 2**32), options)
def test_r7_r8_r9_how_a_hand_ends(seed, options):
    hands, actions = play_out(shuffled(seed), random.Random(seed), options)
    last, result = hands[-1], hands[-1].result
    if result.kind == "draw":
        assert isinstance(actions[-1], Discard)
        assert len(last.stock) == 2 or last.pile_takes == 50
        assert (result.winner, result.points) == (None, 0)
        return
    assert isinstance(actions[-1], Knock)
    knocker = result.knocker
    settlement = result.settlement
    assert settlement == settle(
        last.cards_of(knocker),
        last.cards_of(knocker.opponent),
        gin_bonus=options.gin_bonus,
        undercut_bonus=options.undercut_bonus,
    )
    assert settlement.knocker_count <= 10
    assert result.winner == (knocker if settlement.winner == "knocker" else knocker.opponent)
    assert result.points == settlement.points
    assert result.kind == ("gin" if settlement.gin else "undercut" if settlement.undercut else "knock")


@EXAMPLES
@given(st.integers(0, 2**32), st.floats(0, 1), options)
def test_r9_1_r9_3_no_sequence_of_legal_actions_outlasts_the_bound(seed, take_bias, options):
    """A random walk over the legal actions, taking the pile with probability
    ``take_bias`` when it may and seldom knocking, ends within the bound."""
    rng = random.Random(seed)
    hand = deal(shuffled(seed), options)
    for _ in range(MAX_ACTIONS):
        if hand.is_over:
            break
        legal = hand.legal_actions()
        knocks = [action for action in legal if isinstance(action, Knock)]
        others = [action for action in legal if not isinstance(action, Knock | Take)]
        if Take() in legal and (not others or rng.random() < take_bias):
            action = Take()
        elif knocks and rng.random() < 0.02:
            action = rng.choice(knocks)
        else:
            action = rng.choice(others)
        hand, _ = hand.apply(action)
    assert hand.is_over
    assert hand.turns <= MAX_TURNS
    assert hand.pile_takes <= 50 and len(hand.stock) >= 2


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(50, 120))
def test_r8_r3_4_r10_scores_change_only_as_the_rules_say(seed, target):
    rng = random.Random(seed)
    game = Game(roles=Roles(*rng.sample(range(3), 3)), options=Options(target=target))
    for _ in range(12):
        if game.winner is not None:
            break
        hand = play_out(shuffled(rng.random()), rng, game.options)[0][-1]
        result = hand.result
        assert result.winner is not Role.SITTER, "R8.5"
        seat = None if result.winner is None else game.roles.seat_of(result.winner)
        after = game.after_hand(seat, result.points)
        changes = [new - old for new, old in zip(after.scores, game.scores, strict=True)]
        if seat is None:
            assert changes == [0, 0, 0]
            assert after.roles == game.roles, "R3.5"
        else:
            assert result.points > 0
            assert changes == [result.points if s == seat else 0 for s in range(3)], "R8.5, R8.6"
            loser = game.roles.seat_of(result.loser)
            assert after.roles == Roles(box=seat, captain=game.roles.sitter, sitter=loser), "R3.4"
        assert changes[game.roles.sitter] == 0, "R8.5: the sitter never scores"
        reached = [s for s in range(3) if after.scores[s] >= target]
        assert after.winner == (reached[0] if reached else None), "R10.1"
        assert len(reached) <= 1, "R10.2"
        game = after


# R7, R8: settlements ---------------------------------------------------------------


@st.composite
def knocks(draw):
    """A knocker's ten cards (count 10 or less) and a defender's ten."""
    rng = draw(st.randoms(use_true_random=False))
    for _ in range(1000):
        knocker = meld_rich_cards(rng, 10)
        if deadwood(knocker) <= 10:
            break
    rest = [card for card in DECK if card not in knocker]
    near = [card for card in rest if any(abs(card.rank - k.rank) <= 2 for k in knocker)]
    defender = set(rng.sample(near, min(len(near), rng.randint(0, 6))))
    defender |= set(rng.sample([card for card in rest if card not in defender], 10 - len(defender)))
    rng.shuffle(knocker)
    return knocker, sorted(defender, key=lambda _: rng.random())


def check_layoffs(settlement):
    """Each laid-off card extends the meld it joins, as that meld stands by then."""
    grown = [list(meld.cards) for meld in settlement.knocker.melds]
    for card, index in settlement.layoffs:
        grown[index].append(card)
        assert is_meld(grown[index]), f"{card} does not extend {settlement.knocker.melds[index]}"


@EXAMPLES
@given(knocks(), options)
def test_r7_r8_settlements_are_consistent(knock, options):
    knocker, defender = knock
    s = settle(knocker, defender, gin_bonus=options.gin_bonus, undercut_bonus=options.undercut_bonus)
    # R7.3, R7.6: the knocker's arrangement is legal, complete and has his minimum count.
    knocker_melded = [card for meld in s.knocker.melds for card in meld.cards]
    assert all(is_meld(meld.cards) for meld in s.knocker.melds)
    assert sorted(knocker_melded + list(s.knocker.deadwood)) == sorted(knocker)
    assert s.knocker_count == s.knocker.count == deadwood(knocker)
    # R7.4, R7.5: the defender's melds, deadwood and layoffs are his cards exactly.
    defender_melded = [card for meld in s.defender.melds for card in meld.cards]
    laid = [card for card, _ in s.layoffs]
    assert all(is_meld(meld.cards) for meld in s.defender.melds)
    assert sorted(defender_melded + list(s.defender.deadwood) + laid) == sorted(defender)
    assert s.defender_count == s.defender.count
    check_layoffs(s)
    # R7.5: laying off (and breaking his melds for it) never raises his count.
    assert s.defender_count <= deadwood(defender)
    # R8.2 to R8.4: the points.
    if s.knocker_count == 0:
        assert (s.gin, s.undercut, s.winner, s.layoffs) == (True, False, "knocker", ())
        assert s.defender_count == deadwood(defender)
        assert s.points == options.gin_bonus + s.defender_count
    elif s.knocker_count < s.defender_count:
        assert (s.gin, s.undercut, s.winner) == (False, False, "knocker")
        assert s.points == s.defender_count - s.knocker_count
    else:
        assert (s.gin, s.undercut, s.winner) == (False, True, "defender")
        assert s.points == options.undercut_bonus + s.knocker_count - s.defender_count


@EXAMPLES
@given(knocks(), options)
def test_r7_r8_the_searchs_knock_score_is_the_settlements(knock, options):
    """The hard level scores its knocks on masks, without the arrangements (``knock_score``):
    for every knock it must score what ``settle`` does, gin and undercut included."""
    knocker, defender = knock
    s = settle(knocker, defender, gin_bonus=options.gin_bonus, undercut_bonus=options.undercut_bonus)
    expected = s.points if s.winner == "knocker" else -s.points
    assert knock_score(mask_of(knocker), mask_of(defender), options.gin_bonus, options.undercut_bonus) == expected
