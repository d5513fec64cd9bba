"""The hard level: a search over the cards a player cannot see.

A ``BotView`` leaves two things hidden: the opponent's cards (but those he
took from the pile) and the order of the stock (R4.4). ``evaluate`` deals
them many times over, each deal a *world* consistent with the view, and in
each world plays every candidate action out to the end of the hand with a
fast policy for both players (determinized Monte Carlo). An action's value
is its mean result over the same worlds, so two actions are compared on the
same cards and most of the luck cancels out.

The worlds are not uniform: what the opponent did says what he holds. A card
he took from the pile melds with cards he keeps, so its neighbours are more
likely his; a card he threw away or passed over made no meld for him, so its
neighbours are less likely his (``opponent_weights``).

The search does not weigh every legal action in play: the normal level's
judgement of the cards (``StrongBot``) names a short list (``candidates``):
its three best discards, every knock and both ways to take a card, and the
search chooses among them. It overrules the normal level's own choice only
when another is clearly better over the worlds tried (``preferred``): most
discards differ by less than a few dozen playouts can tell apart. Playouts
with a fast policy misjudge which cards to keep; they serve better to weigh
what a knock, a take or a way of playing on brings against the cards the
opponent may hold.

A knock is never played out: it ends the hand, so it is scored exactly in
each world with the rules' own settlement (R7, R8), undercut (R8.4) and gin
(R8.3) included. The stock left is in every playout: a hand whose stock runs
down is drawn (R9.1) and scores nothing. The scores and the target shape
what a result is worth (``Utility``).

Everything is drawn from the ``random.Random`` given, and the budget is
turned into a number of playout turns at a fixed rate, never read from a
clock: the same view, seed and budget always give the same choice, however
loaded the machine.

>>> import random
>>> from games.engine import DECK, deal
>>> from games.engine.bots import bot_view
>>> hand = deal(random.Random(3).sample(DECK, 52))
>>> bot = HardBot(random.Random(0), budget=0.02)
>>> bot.choose(bot_view(hand, hand.to_move)) in hand.legal_actions()
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from .bots import _NEIGHBOURS, ALL_CARDS, BotView, StrongBot, _same_rank, _Seen
from .cards import DECK, POINT_BANDS, POINTS, indices_of, mask_of
from .hand import (
    PILE_TAKES_FOR_DRAW,
    STOCK_AT_DEAL,
    STOCK_LEFT_FOR_DRAW,
    Action,
    Discard,
    Draw,
    Knock,
    Pass,
    Phase,
    Role,
    Take,
)
from .melds import KNOCK_LIMIT, deadwood_of_mask
from .scoring import knock_score

# The budget of a move, in seconds of one core of the machine the levels were
# measured on (bench/bots.py). It is turned into playout turns at
# TURNS_PER_SECOND, measured there, so a move takes about this long.
DEFAULT_BUDGET = 0.2
TURNS_PER_SECOND = 80_000
SETTLE_TURNS = 6  # what scoring a knock costs, in playout turns
FIRST_WORLDS = 8  # worlds every legal action is tried in
FINALISTS = 4  # actions tried in every further world
MAX_WORLDS = 400  # enough for any choice: an easy one stops here
DISCARD_CANDIDATES = 3  # the normal level's best discards searched when no knock is open
SEARCH_TAKES = True  # whether the search weighs taking the pile's card against drawing
GIN_HUNT, GIN_HUNT_STOCK = StrongBot.gin_hunt, StrongBot.gin_hunt_stock  # the fast policy's gin hunt
RESAMPLES = 4  # deals of the opponent's cards tried before one where he would have knocked is kept
MAX_DRAWS = 12  # the most cards an opponent's hand is chosen from beyond his ten
DEVIATE_Z = 2.0  # standard errors by which the search must beat the normal level's choice to overrule it
MATCH_BONUS = 30  # what reaching the target is worth beyond its points (R10.1)

_POINTS = tuple(POINTS[index % 13] for index in range(52))


# Who holds what -----------------------------------------------------------------

TOOK_WEIGHT = 2.0  # a neighbour of a card he took from the pile
SHUNNED_RANK = 0.5  # a card of the rank of one he threw away or passed over
SHUNNED_NEAR = 0.7  # a card next to one of those in its suit


def _next_to(mask: int) -> int:
    """The cards one rank above or below a card of ``mask`` in its suit."""
    kings = sum(1 << (suit * 13 + 12) for suit in range(4))
    aces = sum(1 << (suit * 13) for suit in range(4))
    return ((mask & ~kings) << 1 | (mask & ~aces) >> 1) & ALL_CARDS


def opponent_weights(view: BotView, unseen: int) -> list[tuple[int, float]]:
    """Each unseen card with how likely, relatively, the opponent holds it.

    A card he took from the pile and kept was worth a meld to him, so the
    cards that meld with it are likelier his. A card he threw away or passed
    over made no meld with his cards: its rank, and its neighbours in its
    suit, are less likely in his hand.
    """
    took = 0
    for card in view.opponent_holds:
        took |= _NEIGHBOURS[card]
    shunned = mask_of(set(view.opponent_discards) | set(view.opponent_refused))
    shunned_rank = _same_rank(shunned)
    shunned_near = _next_to(shunned)
    weights = []
    for index in indices_of(unseen):
        bit = 1 << index
        weight = 1.0
        if took & bit:
            weight *= TOOK_WEIGHT
        if shunned_rank & bit:
            weight *= SHUNNED_RANK
        elif shunned_near & bit:
            weight *= SHUNNED_NEAR
        weights.append((index, weight))
    return weights


def _sample_world(
    weights: Sequence[tuple[int, float]], hidden: int, draws: int, rng: random.Random
) -> tuple[int, list[int]]:
    """One world: the opponent's ``hidden`` unseen cards and the stock, the rest
    in a random order.

    He did not keep random cards: each card he drew from the stock he kept or
    threw away, whichever left him the lower count. So he is dealt ``hidden``
    plus ``draws`` cards, drawn by weight without replacement (the keys of
    Efraimidis and Spirakis), and gives back ``draws`` of them the way the
    fast policy discards; what he gives back joins the stock. A uniform deal
    would make his hand weaker than it is late in a hand, and a knock look
    safer than it is (R8.4).
    """
    draws = min(draws, len(weights) - hidden)
    keyed = sorted(((rng.random() ** (1.0 / weight), card) for card, weight in weights), reverse=True)
    dealt = [card for _, card in keyed[: hidden + draws]]
    stock = [card for _, card in keyed[hidden + draws :]]
    held = 0
    for card in dealt:
        held |= 1 << card
    # The highest points first, in dealt order among equals: as in the playouts'
    # discard, no card can lower the count by more than its points, so the look
    # stops once none left can beat the best.
    dealt.sort(key=_POINTS.__getitem__, reverse=True)
    for _ in range(draws):
        whole = deadwood_of_mask(held)
        best_key, best = 1 << 30, -1
        for card in dealt:
            points = _POINTS[card]
            if (whole - points) * 16 - points >= best_key:
                break
            key = deadwood_of_mask(held ^ 1 << card) * 16 - points
            if key < best_key:
                best_key, best = key, card
        held ^= 1 << best
        dealt.remove(best)
        stock.append(best)
    rng.shuffle(stock)
    return held, stock


def _would_knock(hand: int, stock_size: int) -> bool:
    """Whether a player of the fast policy would have knocked with ``hand``
    rather than discard to it: a world where the opponent sits on such a
    count without knocking is unlikely, and redealt."""
    count = deadwood_of_mask(hand)
    return count == 0 or (count <= KNOCK_LIMIT and not (count <= GIN_HUNT and stock_size > GIN_HUNT_STOCK))


def _draws(view: BotView) -> int:
    """How many cards the opponent drew from the stock, at most: a turn of his
    took one card, and those he holds from the pile were not drawn."""
    return max(0, min(MAX_DRAWS, len(view.opponent_discards) - len(view.opponent_holds)))


# What a result is worth ------------------------------------------------------------


@dataclass(frozen=True)
class Utility:
    """What a hand's points are worth to the mover, in points.

    Points past what a player needs to reach the target change nothing, and
    reaching it wins the match (R10.1): so a result is worth its points, but
    at most what the scorer needs, plus ``MATCH_BONUS`` when it reaches the
    target. Early in a match that is the points themselves.
    """

    need: int  # what the mover needs to reach the target
    opponent_need: int

    @classmethod
    def of(cls, view: BotView) -> Utility:
        target = view.options.target
        return cls(max(1, target - view.score), max(1, target - view.opponent_score))

    def __call__(self, points: int) -> float:
        if points > 0:
            return points if points < self.need else self.need + MATCH_BONUS
        if points < 0:
            return points if -points < self.opponent_need else -self.opponent_need - MATCH_BONUS
        return 0.0


# Playouts -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rules:
    gin_bonus: int
    undercut_bonus: int
    may_discard_taken: bool


def knock_points(kept: int, defender: int, rules: _Rules) -> int:
    """What the knocker scores (negative: what the defender scores) when he keeps
    ``kept`` and the defender holds ``defender``, by the rules' settlement (R7, R8)."""
    return knock_score(kept, defender, rules.gin_bonus, rules.undercut_bonus)


class _Playout:
    """One world played out from a position by the fast policy, for both players.

    The policy is the simple bot's, on masks: take the pile's top card when it
    joins a meld, discard what leaves the lowest count (the highest card among
    equals) and knock as soon as the rules allow, but for the normal level's
    gin hunt: with a count of ``GIN_HUNT`` or less while the stock is long it
    plays on (R8.3). Player 0 is the mover.
    """

    __slots__ = ("counts", "hands", "pile", "pile_takes", "rules", "stock", "stock_at", "turns")

    def __init__(self, hands: list[int], pile: list[int], stock: list[int], pile_takes: int, rules: _Rules) -> None:
        self.hands = hands
        self.counts = [deadwood_of_mask(hands[0]), deadwood_of_mask(hands[1])]
        self.pile = pile
        self.stock = stock
        self.stock_at = 0
        self.pile_takes = pile_takes
        self.rules = rules
        self.turns = 0

    def takes(self, player: int) -> bool:
        """The policy's choice of the pile's top card: it joins a meld."""
        top = self.pile[-1]
        return deadwood_of_mask(self.hands[player] | 1 << top) < self.counts[player] + _POINTS[top]

    def take(self, player: int) -> int:
        top = self.pile.pop()
        self.hands[player] |= 1 << top
        self.pile_takes += 1
        return top

    def draw(self, player: int) -> None:
        self.hands[player] |= 1 << self.stock[self.stock_at]
        self.stock_at += 1

    def choose_discard(self, player: int, taken: int) -> tuple[int, int]:
        """The policy's discard from eleven cards and the count it leaves.

        Throwing a card lowers the count by its points at most, so the cards
        are tried from the highest points down (the lowest first among equal
        points, the order of the ties) and the search stops once no card left
        can beat the best so far: mostly after two or three counts.
        """
        hand = self.hands[player]
        best_key, best_card, best_count = 1 << 30, -1, 0
        if self.rules.may_discard_taken:
            taken = -1
        whole = deadwood_of_mask(hand)
        for points, band in POINT_BANDS:
            if (whole - points) * 16 - points >= best_key:
                break
            mask = hand & band
            while mask:
                low = mask & -mask
                mask ^= low
                card = low.bit_length() - 1
                if card == taken:
                    continue
                count = deadwood_of_mask(hand ^ low)
                key = count * 16 - points
                if key < best_key:
                    best_key, best_card, best_count = key, card, count
        return best_card, best_count

    def discard(self, player: int, card: int, count: int) -> bool:
        """Discard ``card``, leaving ``count``; True when that draws the hand (R9.1, R9.3)."""
        self.hands[player] ^= 1 << card
        self.counts[player] = count
        self.pile.append(card)
        self.turns += 1
        return len(self.stock) - self.stock_at <= STOCK_LEFT_FOR_DRAW or self.pile_takes >= PILE_TAKES_FOR_DRAW

    def knock(self, player: int, card: int) -> int:
        """Knock with ``card``: player 0's points."""
        points = knock_points(self.hands[player] ^ 1 << card, self.hands[1 - player], self.rules)
        self.turns += SETTLE_TURNS
        return points if player == 0 else -points

    def hunts_gin(self, count: int) -> bool:
        """The normal level's rule: with a count this low and the stock long, play on for gin (R8.3)."""
        return count <= GIN_HUNT and len(self.stock) - self.stock_at > GIN_HUNT_STOCK

    def finish_turn(self, player: int, taken: int) -> int | None:
        """The policy's discard or knock for ``player`` holding eleven cards:
        player 0's points if that ends the hand, else None."""
        card, count = self.choose_discard(player, taken)
        if count == 0 or (count <= KNOCK_LIMIT and not self.hunts_gin(count)):
            return self.knock(player, card)
        if self.discard(player, card, count):
            return 0
        return None

    def run(self, player: int, may_take: bool = True) -> int:
        """Play on from ``player``'s draw to the end of the hand: player 0's points."""
        while True:
            if may_take and self.pile and self.takes(player):
                taken = self.take(player)
            else:
                self.draw(player)
                taken = -1
            may_take = True
            points = self.finish_turn(player, taken)
            if points is not None:
                return points
            player = 1 - player


def _play(action: Action, view: BotView, mine: int, opponent: int, stock: list[int], rules: _Rules) -> tuple[int, int]:
    """Play ``action`` in one world and then the hand out: the mover's points and
    the playout turns it cost."""
    if type(action) is Knock:
        return knock_points(mine ^ 1 << action.card, opponent, rules), SETTLE_TURNS
    pile = [int(card) for card in view.pile]
    game = _Playout([mine, opponent], pile, stock, 0, rules)
    game.pile_takes = _pile_takes(view)
    points: int | None
    if type(action) is Discard:
        drawn = game.discard(0, int(action.card), deadwood_of_mask(mine ^ 1 << action.card))
        points = 0 if drawn else game.run(1)
    elif type(action) is Take:
        taken = game.take(0)
        points = game.finish_turn(0, taken)
        if points is None:
            points = game.run(1)
    elif type(action) is Draw:
        game.draw(0)
        points = game.finish_turn(0, -1)
        if points is None:
            points = game.run(1)
    else:  # Pass
        points = _after_pass(view, game)
    return points, game.turns + 1


def _after_pass(view: BotView, game: _Playout) -> int:
    """The hand after the mover refuses the upcard (R5): the box may take it in
    turn, and if both refuse, the captain draws from the stock (R5.4)."""
    if view.role is Role.CAPTAIN:
        if game.takes(1):
            taken = game.take(1)
            points = game.finish_turn(1, taken)
            return game.run(0) if points is None else points
        return game.run(0, may_take=False)
    return game.run(1, may_take=False)


def _pile_takes(view: BotView) -> int:
    """A lower bound of the takes from the pile in this hand (R9.3): the view
    keeps what the opponent holds, not every take. It only matters in a hand
    that has gone round the pile dozens of times."""
    return len(view.opponent_holds)


# The search -------------------------------------------------------------------------


@dataclass(frozen=True)
class Evaluation:
    """The search's estimate of each legal action: mean utility (``Utility``)
    over the worlds it was played in, and how many those were."""

    choice: Action  # the best of the finalists; no action is valued above it
    values: dict[Action, float]
    worlds: dict[Action, int]


def _order(action: Action) -> int:
    """A fixed order of actions, for ties: a knock before a discard of the same card."""
    kind = {Knock: 0, Discard: 1, Take: 2, Draw: 3, Pass: 4}[type(action)]
    card = getattr(action, "card", 0)
    return kind * 64 + int(card)


def evaluate(
    view: BotView,
    rng: random.Random,
    budget: float | None = None,
    candidates: Sequence[Action] | None = None,
    value_all: bool = True,
) -> Evaluation:
    """The legal actions' values for the player of ``view``, by determinized
    Monte Carlo within ``budget`` seconds (``DEFAULT_BUDGET`` when None); see ``search``.

    A value is the mean utility of its worlds; an action that stopped early
    is valued by its mean difference from the final choice over the worlds
    both were played in, which keeps all values on one footing, and never
    above the choice.
    """
    return summary(*search(view, rng, budget, candidates, value_all))


def search(
    view: BotView,
    rng: random.Random,
    budget: float | None = None,
    candidates: Sequence[Action] | None = None,
    value_all: bool = True,
    also: Sequence[Action] = (),
) -> tuple[dict[Action, list[float]], list[Action]]:
    """Each action searched with its utility in each world (the worlds in the
    same order for all), and the actions searched to the end.

    With ``candidates`` (the level's short list, see ``candidates``) those
    are searched in every world until the budget is spent, and the other
    legal actions, when ``value_all``, only in the first ``FIRST_WORLDS``.
    Without, every action is played in the first worlds, then the
    ``FINALISTS`` best and every knock (cheap: it is only scored) go on.
    ``also`` names legal actions to play in every world as well, their
    playouts not charged to the budget: the worlds, and so the choice among
    the others, are the same as without them (a review values the move a
    person played beside the choice ``hint`` gave him).
    """
    actions = list(view.legal_actions)
    if not actions:
        raise ValueError("the player of this view has no move")
    budget_turns = (DEFAULT_BUDGET if budget is None else budget) * TURNS_PER_SECOND
    mine = mask_of(view.cards)
    holds = mask_of(view.opponent_holds)
    unseen = ALL_CARDS & ~mine & ~mask_of(view.pile) & ~holds
    hidden = unseen.bit_count() - view.stock_size
    weights = opponent_weights(view, unseen)
    draws = _draws(view)
    # A world's deal is charged a count of each card he may give back for each
    # card he gives back, at eleven counts a playout turn. The give-back and a
    # playout turn both try the highest cards first and stop after a few counts,
    # so this overcharges a deal: late in a hand, with many cards to give back,
    # a move takes less than its budget.
    deal_turns = 1 + draws * (hidden + draws) / 11
    rules = _Rules(view.options.gin_bonus, view.options.undercut_bonus, view.options.may_discard_taken)
    utility = Utility.of(view)

    finalists = list(candidates) if candidates else None
    first = actions if value_all or not finalists else finalists
    extra = [action for action in dict.fromkeys(also) if action in actions]
    results: dict[Action, list[float]] = {action: [] for action in dict.fromkeys([*first, *extra])}
    active = list(first)
    spent = 0.0
    worlds = 0
    while worlds < MAX_WORLDS and (worlds < FIRST_WORLDS or spent < budget_turns):
        if worlds == FIRST_WORLDS:
            active = finalists or _finalists(results, active)
            if len(active) == 1 and not extra:
                break
        for _ in range(RESAMPLES):
            held, stock = _sample_world(weights, hidden, draws, rng)
            spent += deal_turns
            if not view.opponent_discards or not _would_knock(holds | held, len(stock)):
                break
        opponent = holds | held
        for action in active:
            points, turns = _play(action, view, mine, opponent, list(stock), rules)
            results[action].append(utility(points))
            spent += turns
        for action in extra:
            if action not in active:
                results[action].append(utility(_play(action, view, mine, opponent, list(stock), rules)[0]))
        worlds += 1
    return results, [*active, *(action for action in extra if action not in active)]


def candidates(view: BotView, normal: StrongBot) -> list[Action]:
    """The actions the hard level searches among, the normal level's choice first.

    Before a discard, with ``SEARCH_TAKES``, both ways to take a card. At a
    discard, the normal level's ``DISCARD_CANDIDATES`` best discards; and when
    a knock is open, every knock and the discard that keeps the lowest count
    too. The normal level's ranking is a good judgement of the cards and
    narrows the search; the search adds what the ranking cannot see: what a
    knock scores against the hands the opponent may hold (R8.2, R8.4), and
    what each way of playing on risks and brings over the rest of the hand.
    """
    choice = normal.choose(view)
    if view.phase is not Phase.DISCARD:
        return list(dict.fromkeys([choice, *view.legal_actions])) if SEARCH_TAKES else [choice]
    mask = mask_of(view.cards)
    seen = _Seen(view, mask, normal.outs_weight * math.sqrt(view.stock_size / STOCK_AT_DEAL))
    discards = [action.card for action in view.legal_actions if type(action) is Discard]
    ranked = normal._discards(mask, discards, seen)
    best: list[Action] = [Discard(DECK[option[3]]) for option in ranked[:DISCARD_CANDIDATES] if option[0] < math.inf]
    knocks = [action for action in view.legal_actions if type(action) is Knock]
    if knocks:
        lowest = min(ranked, key=lambda option: option[1:])
        best += [*knocks, Discard(DECK[lowest[3]])]
    return list(dict.fromkeys([choice, *best]))


def _finalists(results: dict[Action, list[float]], active: list[Action]) -> list[Action]:
    """The actions worth more worlds: the ``FINALISTS`` best so far, and every knock."""
    ranked = sorted(active, key=lambda action: (-sum(results[action]), _order(action)))
    kept = set(ranked[:FINALISTS]) | {action for action in active if type(action) is Knock}
    return [action for action in active if action in kept]


def summary(results: dict[Action, list[float]], finalists: list[Action]) -> Evaluation:
    means = {action: sum(results[action]) / len(results[action]) for action in finalists}
    choice = max(finalists, key=lambda action: (means[action], -_order(action)))
    values: dict[Action, float] = dict(means)
    chosen = results[choice]
    for action, outcomes in results.items():
        if action in means:
            continue
        gap = sum(outcomes[i] - chosen[i] for i in range(len(outcomes))) / len(outcomes)
        values[action] = means[choice] + min(0.0, gap)
    return Evaluation(choice, values, {action: len(outcomes) for action, outcomes in results.items()})


@dataclass
class HardBot:
    """The hard level: the normal level's judgement of the cards, and a search
    over the hidden ones wherever it has a choice to weigh (``candidates``),
    which overrules that judgement only when sure of it (``preferred``)."""

    rng: random.Random
    name: str = "hard"
    budget: float = DEFAULT_BUDGET
    normal: StrongBot = field(default_factory=lambda: StrongBot(random.Random(0)), repr=False)

    def choose(self, view: BotView) -> Action:
        short_list = candidates(view, self.normal)
        if len(short_list) == 1:
            return short_list[0]
        results, _ = search(view, self.rng, self.budget, short_list, value_all=False)
        return preferred(results, short_list)


def preferred(results: dict[Action, list[float]], short_list: Sequence[Action]) -> Action:
    """The normal level's choice (``short_list[0]``) unless the search finds
    another clearly better: by more than ``DEVIATE_Z`` standard errors of the
    difference, world by world. Two discards are often within a fraction of a
    point, far less than a few dozen worlds can tell apart; choosing on such
    noise gave away the normal level's better judgement of the cards. Whether
    to knock is the search's to decide by the mean: a knock is scored exactly
    in each world, and the normal level knocks into undercuts it cannot see."""
    default = short_list[0]
    base = results[default]
    searched = [action for action in short_list if len(results[action]) == len(base)]
    best_mean = max(searched, key=lambda action: sum(results[action]))
    if isinstance(default, Knock) or isinstance(best_mean, Knock):
        return best_mean
    best: Action = default
    best_gain = 0.0
    for action in searched[1:]:
        outcomes = results[action]
        n = len(outcomes)
        if n < 2:
            continue
        differences = [outcomes[i] - base[i] for i in range(n)]
        gain = sum(differences) / n
        if gain <= best_gain:
            continue
        spread = math.sqrt(sum((d - gain) ** 2 for d in differences) / (n - 1) / n)
        if gain > DEVIATE_Z * spread:
            best, best_gain = action, gain
    return best
