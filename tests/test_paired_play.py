"""Paired play (a spec's `mirror: true`): every lineup also played with its seats reversed on the same seed, a card
game dealt in duplicate (the same deck, the hands swapped between the agents), the seed, the mirror and the deal
stored per match, `compare` averaging each deal's two matches; and a database from before the columns upgraded."""

from __future__ import annotations

import asyncio

import pytest

from engine import store
from engine.games import get_game
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.play.spec_text import SpecError
from engine.score.compare import compare

STRONG, WEAK = "bot:hand_strength", "bot:random"


def holdem(mirror: bool | None, repeats: int = 3) -> dict:
    entry = {"game": "texas_holdem", "lineups": [[STRONG, WEAK], {"all": WEAK}]}
    return {"name": "paired", "repeats": repeats, "games": [entry | ({} if mirror is None else {"mirror": mirror})]}


def test_mirror_adds_each_lineup_reversed_on_the_same_seeds():
    plain = parse_spec(holdem(None)).matches
    assert all(not p.mirror and p.deal is None for p in plain)
    paired = parse_spec(holdem(True)).matches
    assert len(paired) == len(plain) + 3  # self-play reversed is itself: not played twice
    mirrors = [p for p in paired if p.mirror]
    for mirror in mirrors:
        (original,) = [p for p in paired if p.deal == mirror.deal and not p.mirror]
        assert original.seed == mirror.seed and original.seats == mirror.seats[::-1]
    assert all(p.deal is None for p in paired if p.seats[0] == p.seats[1])
    with pytest.raises(SpecError, match=r"games\[0\]\.mirror: Input should be a valid boolean"):
        parse_spec(holdem("yes"))


def test_a_mirrored_card_game_deals_the_same_hands_swapped_and_compare_pairs_them(tmp_path):
    db = tmp_path / "paired.duckdb"
    asyncio.run(run_spec(parse_spec(holdem(True)), db, progress=False))
    rows = store.rows(db, """SELECT m.deal, m.seed, m.mirror, s.seat, s.agent FROM matches m JOIN seats s
                             USING (match_id) WHERE m.deal IS NOT NULL ORDER BY 1, 3, 4""")
    held: dict[tuple[str, str], list[str]] = {}
    for deal, seed, _mirror, seat, agent in rows:
        game = get_game("texas_holdem")({})
        game.reset(seed)
        held.setdefault((deal, agent), []).append(" ".join(game.holes[seat]))
    assert len(held) == 6 and all(len(hands) == 2 for hands in held.values())
    for deal in {deal for deal, _ in held}:  # each agent held, over the two matches, the two hands of the deal
        assert sorted(held[deal, STRONG]) == sorted(held[deal, WEAK]) and held[deal, STRONG][0] != \
            held[deal, STRONG][1]
    table = compare(db, STRONG, WEAK).set_index("game")
    assert table.loc["texas_holdem", "deals"] == 3 and table.loc["texas_holdem", "matches"] == 6
    assert table.loc["texas_holdem", "deal_lo"] <= table.loc["texas_holdem", "deal_share"] <= \
        table.loc["texas_holdem", "deal_hi"]
    assert table.loc["texas_holdem", "deal_share"] == pytest.approx(table.loc["texas_holdem", "win_share"])


def test_a_database_from_before_paired_play_is_upgraded_unmirrored(tmp_path):
    db = tmp_path / "old.duckdb"
    asyncio.run(run_spec(parse_spec(holdem(None, 1)), db, progress=False))
    with store.connect(db) as con:
        con.execute("ALTER TABLE matches DROP COLUMN mirror")
        con.execute("ALTER TABLE matches DROP COLUMN deal")
        con.execute("UPDATE schema_version SET version = 16")
    store.init_db(db)
    assert store.rows(db, "SELECT DISTINCT mirror, deal FROM matches") == [(False, None)]
    assert store.rows(db, "SELECT max(version) FROM schema_version") == [(store.SCHEMA_VERSION,)]
