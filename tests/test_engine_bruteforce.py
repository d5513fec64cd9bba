"""The engine against an independent brute force (R2.4, R7.2, R7.5, R7.6, R8).

The brute force here shares nothing with the engine but the card objects: it
reads rank and suit from each card's name, lists every meld of the deck, and
tries every way to use them. Slow, obvious and exhaustive:

- minimum deadwood: the lowest card is either deadwood or in one of the melds
  that contain it, recursively (R2.4);
- the defender's best count: every subset of his cards that can be laid off
  on the knocker's melds (each meld plus its cards still a meld, so chains
  and broken own melds are included), each with the minimum deadwood of the
  rest (R7.5);
- the knocker's choice: every partition of his hand into melds and deadwood
  with his minimum count, keeping the highest defender's best count (R7.6).
"""

import random
from itertools import combinations, product

from games.engine import DECK, deadwood, knock_discards, parse_cards, settle
from games.engine.cards import mask_of

RANK_NAMES, SUIT_NAMES = "A23456789TJQK", "shdc"
RANK = [RANK_NAMES.index(str(card)[0]) + 1 for card in DECK]
SUIT = [SUIT_NAMES.index(str(card)[1]) for card in DECK]
POINTS = [min(rank, 10) for rank in RANK]
AT = {(RANK[index], SUIT[index]): index for index in range(52)}
SEED = 20240531
HANDS = 3000


def bits(mask):
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def mask(indexes):
    return sum(1 << index for index in indexes)


def points(mask_):
    return sum(POINTS[index] for index in bits(mask_))


def bf_is_meld(mask_):
    cards = bits(mask_)
    if len(cards) < 3:
        return False
    if len({RANK[c] for c in cards}) == 1:
        return len(cards) <= 4
    ranks = sorted(RANK[c] for c in cards)
    return len({SUIT[c] for c in cards}) == 1 and ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def all_melds():
    melds = []
    for rank in range(1, 14):
        same = [AT[rank, suit] for suit in range(4)]
        melds += [mask(group) for size in (3, 4) for group in combinations(same, size)]
    for suit in range(4):
        for low in range(1, 12):
            for high in range(low + 2, 14):
                melds.append(mask(AT[rank, suit] for rank in range(low, high + 1)))
    assert all(bf_is_meld(meld) for meld in melds)
    return melds


ALL_MELDS = all_melds()
MELDS_WITH = [[meld for meld in ALL_MELDS if meld >> index & 1] for index in range(52)]


def bf_deadwood(hand, memo=None):
    """Minimum deadwood: the lowest card is deadwood or in a meld with it."""
    memo = {} if memo is None else memo
    if hand == 0:
        return 0
    if hand in memo:
        return memo[hand]
    low = (hand & -hand).bit_length() - 1
    best = POINTS[low] + bf_deadwood(hand & ~(1 << low), memo)
    for meld in MELDS_WITH[low]:
        if meld & hand == meld:
            best = min(best, bf_deadwood(hand & ~meld, memo))
    memo[hand] = best
    return best


def bf_partitions(hand):
    """Every partition of a hand into melds and deadwood: (melds, deadwood mask)."""
    if hand == 0:
        yield (), 0
        return
    low = (hand & -hand).bit_length() - 1
    for melds, loose in bf_partitions(hand & ~(1 << low)):
        yield melds, loose | 1 << low
    for meld in MELDS_WITH[low]:
        if meld & hand == meld:
            for melds, loose in bf_partitions(hand & ~meld):
                yield (meld, *melds), loose


def could_join(meld):
    """Every card that could ever join a meld by laying off, chains included."""
    cards = bits(meld)
    if len({RANK[c] for c in cards}) == 1:
        return mask(AT[RANK[cards[0]], suit] for suit in range(4)) & ~meld if len(cards) == 3 else 0
    suit, ranks = SUIT[cards[0]], [RANK[c] for c in cards]
    return mask(AT[rank, suit] for rank in range(1, 14) if rank < min(ranks) or rank > max(ranks))


JOINS = {meld: could_join(meld) for meld in ALL_MELDS}


def can_lay_off(melds, cards):
    """Whether the cards can all be laid off at once, each meld still a meld."""
    homes = [[i for i, meld in enumerate(melds) if JOINS[meld] >> card & 1] for card in cards]
    for choice in product(*homes):
        grown = list(melds)
        for card, home in zip(cards, choice, strict=True):
            grown[home] |= 1 << card
        if all(bf_is_meld(grown[home]) for home in set(choice)):
            return True
    return False


def bf_defender_best(melds, defender):
    """The defender's lowest count: lay off any layable subset, arrange the rest."""
    joinable = 0
    for meld in melds:
        joinable |= JOINS[meld]
    candidates = bits(defender & joinable)
    memo = {}
    best = bf_deadwood(defender, memo)
    for size in range(1, len(candidates) + 1):
        for laid in combinations(candidates, size):
            if can_lay_off(melds, laid):
                best = min(best, bf_deadwood(defender & ~mask(laid), memo))
    return best


def bf_knock(knocker, defender):
    """(knocker count, defender count) after the knocker's best arrangement (R7.6)."""
    count = bf_deadwood(knocker)
    if count == 0:
        return 0, bf_deadwood(defender)
    arrangements = {frozenset(melds) for melds, loose in bf_partitions(knocker) if points(loose) == count}
    return count, max(bf_defender_best(sorted(melds), defender) for melds in arrangements)


# Hands -------------------------------------------------------------------------


def random_hand(rng, size):
    return mask(rng.sample(range(52), size))


def neighbours(hand):
    """Cards of the same rank or one or two ranks away in the same suit."""
    near = 0
    for c in bits(hand):
        near |= mask(AT[RANK[c], suit] for suit in range(4))
        near |= mask(AT[rank, SUIT[c]] for rank in range(RANK[c] - 2, RANK[c] + 3) if 1 <= rank <= 13)
    return near & ~hand


def meld_rich_hand(rng, size, taken=0):
    """Melds that may share cards, then cards near them: hands full of choices."""
    hand = 0
    for _ in range(rng.randint(1, 4)):
        meld = rng.choice(ALL_MELDS)
        if not meld & taken and (hand | meld).bit_count() <= size:
            hand |= meld
    while hand.bit_count() < size:
        near = bits(neighbours(hand) & ~taken)
        pool = near if near and rng.random() < 0.7 else bits(~hand & ~taken & (1 << 52) - 1)
        hand |= 1 << rng.choice(pool)
    return hand


def set_rich_hand(rng, size):
    """Cards of three to seven ranks close together: sets abound, several ranks
    are held three or four times, and their cards compete with runs."""
    width = rng.randint(4, 8)
    start = rng.randint(1, 14 - width)
    ranks = rng.sample(range(start, start + width), rng.randint(3, min(width, 7)))
    pool = [AT[rank, suit] for rank in ranks for suit in range(4)]
    hand = mask(rng.sample(pool, min(size, len(pool))))
    rest = [c for c in range(52) if not hand >> c & 1]
    return hand | mask(rng.sample(rest, size - hand.bit_count()))


def close_ranks(hand):
    """Every card within two ranks of a card of the hand, in any suit."""
    ranks = {rank for c in bits(hand) for rank in range(RANK[c] - 2, RANK[c] + 3)}
    return mask(c for c in range(52) if RANK[c] in ranks) & ~hand


def touching_melds(hand, taken):
    """Melds clear of the hand and of ``taken`` within two ranks of it: ones that
    compete with its melds for cards and for the defender's layoffs."""
    near = close_ranks(hand)
    return [meld for meld in ALL_MELDS if not meld & (hand | taken) and (not hand or meld & near)]


def knocker_hand(rng):
    """A ten-card hand that may knock (count 10 or less), its melds side by side
    so that they compete for cards and for the defender's layoffs."""
    while True:
        hand = 0
        for _ in range(rng.randint(2, 3)):
            fitting = [meld for meld in touching_melds(hand, 0) if (hand | meld).bit_count() <= 10]
            if fitting:
                hand |= rng.choice(fitting)
        while hand.bit_count() < 10:
            hand |= 1 << rng.choice(bits(neighbours(hand)))
        if bf_deadwood(hand) <= 10:
            return hand


def layoff_targets(hand):
    """Cards that could go on a meld of the hand: the fourth of a set, or one or
    two beyond either end of a run."""
    targets = 0
    for meld in ALL_MELDS:
        if meld & hand == meld:
            ends = JOINS[meld]
            if len({RANK[c] for c in bits(meld)}) > 1:
                ranks = [RANK[c] for c in bits(meld)]
                reach = {min(ranks) - 1, min(ranks) - 2, max(ranks) + 1, max(ranks) + 2}
                ends = mask(c for c in bits(ends) if RANK[c] in reach)
            targets |= ends
    return targets & ~hand


def defender_hand(rng, knocker):
    """Ten cards, many of them ones the knocker's melds could take."""
    hand = 0
    for pool in (bits(layoff_targets(knocker)), bits(neighbours(knocker))):
        for card in rng.sample(pool, min(len(pool), rng.randint(0, 5))):
            if hand.bit_count() < 10:
                hand |= 1 << card
    fitting = [meld for meld in touching_melds(hand, knocker) if (hand | meld).bit_count() <= 10]
    if fitting and rng.random() < 0.5:
        hand |= rng.choice(fitting)
    rest = [c for c in range(52) if not (knocker | hand) >> c & 1]
    return hand | mask(rng.sample(rest, 10 - hand.bit_count()))


def cards(mask_):
    hand = [DECK[index] for index in bits(mask_)]
    random.Random(mask_).shuffle(hand)
    return hand


# The cross-checks ----------------------------------------------------------------


def check_deadwood(hand):
    assert deadwood(cards(hand)) == bf_deadwood(hand), cards(hand)


def test_r2_4_deadwood_matches_brute_force_on_random_hands():
    rng = random.Random(SEED)
    for _ in range(HANDS):
        check_deadwood(random_hand(rng, rng.choice((10, 11))))


def test_r2_4_deadwood_matches_brute_force_on_meld_rich_hands():
    rng = random.Random(SEED + 1)
    for _ in range(HANDS):
        check_deadwood(meld_rich_hand(rng, rng.choice((10, 11))))


def test_r2_4_deadwood_matches_brute_force_on_set_rich_hands():
    rng = random.Random(SEED + 7)
    for _ in range(HANDS):
        check_deadwood(set_rich_hand(rng, rng.choice((10, 11))))


def test_r2_4_deadwood_matches_brute_force_on_set_rich_hands_of_every_size():
    rng = random.Random(SEED + 8)
    for size in range(3, 21):
        for _ in range(40):
            check_deadwood(set_rich_hand(rng, size))


def test_r2_4_deadwood_matches_brute_force_on_hands_of_every_size():
    rng = random.Random(SEED + 2)
    for size in range(0, 16):
        for _ in range(40):
            check_deadwood(meld_rich_hand(rng, size) if size else 0)


def check_knock_discards(hand):
    memo = {}
    expected = {}
    for card in bits(hand):
        count = bf_deadwood(hand & ~(1 << card), memo)
        if count <= 10:
            expected[DECK[card]] = count
    assert knock_discards(cards(hand)) == expected, cards(hand)


def test_r7_2_knock_discards_match_brute_force_on_random_hands():
    rng = random.Random(SEED + 3)
    for _ in range(HANDS // 3):
        check_knock_discards(random_hand(rng, 11))


def test_r7_2_knock_discards_match_brute_force_on_meld_rich_hands():
    rng = random.Random(SEED + 4)
    for _ in range(HANDS):
        check_knock_discards(meld_rich_hand(rng, 11))


def test_r7_2_knock_discards_match_brute_force_on_set_rich_hands():
    rng = random.Random(SEED + 9)
    for _ in range(HANDS // 3):
        check_knock_discards(set_rich_hand(rng, 11))


def check_settle(knocker, defender, rng):
    gin_bonus, undercut_bonus = rng.choice((25, 20)), rng.randint(0, 25)
    s = settle(cards(knocker), cards(defender), gin_bonus=gin_bonus, undercut_bonus=undercut_bonus)
    knocker_count, defender_count = bf_knock(knocker, defender)
    context = (cards(knocker), cards(defender), s)
    assert (s.knocker_count, s.defender_count) == (knocker_count, defender_count), context
    # The knocker's arrangement the engine shows is one that leaves the defender that count.
    shown = sorted(mask_of(meld.cards) for meld in s.knocker.melds)
    assert points(knocker & ~sum(shown)) == knocker_count, context
    if knocker_count:
        assert bf_defender_best(shown, defender) == defender_count, context
    if knocker_count == 0:
        assert (s.gin, s.winner, s.points, s.layoffs) == (True, "knocker", gin_bonus + defender_count, ())
    elif knocker_count < defender_count:
        assert (s.gin, s.undercut, s.winner, s.points) == (False, False, "knocker", defender_count - knocker_count)
    else:
        points_ = undercut_bonus + knocker_count - defender_count
        assert (s.gin, s.undercut, s.winner, s.points) == (False, True, "defender", points_)


def test_r7_5_r7_6_r8_settle_matches_brute_force_on_meld_rich_knocks():
    rng = random.Random(SEED + 5)
    for _ in range(HANDS):
        knocker = knocker_hand(rng)
        check_settle(knocker, defender_hand(rng, knocker), rng)


def test_r7_5_r7_6_r8_settle_matches_brute_force_against_meld_rich_defenders():
    rng = random.Random(SEED + 6)
    for _ in range(HANDS // 3):
        knocker = knocker_hand(rng)
        defender = meld_rich_hand(rng, 10, taken=knocker)
        check_settle(knocker, defender, rng)


# The brute force checks itself on the worked examples ------------------------------


def by_name(text):
    return mask(int(card) for card in parse_cards(text))


def test_brute_force_agrees_with_the_worked_examples():
    assert bf_deadwood(by_name("7s 7h 7d 5s 6s")) == 11
    assert bf_deadwood(by_name("5s 5h 5d 5c 3s 4s")) == 0
    assert bf_is_meld(by_name("As 2s 3s")) and not bf_is_meld(by_name("Qs Ks As"))
    knocker, defender = by_name("Ks Kc Kd 5s 6s 7s 9c Tc Jc 2h"), by_name("8s 9s 8c 2c 3c 4d 5d 6h Qh Ah")
    assert bf_knock(knocker, defender) == (2, 31)
