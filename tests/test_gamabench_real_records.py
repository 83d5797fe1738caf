"""GAMA-Bench records of other models and settings, as the authors' repository publishes them.

tests/data/gamabench/ holds trimmed copies of files from github.com/CUHK-ARISE/GAMABench `raw_results/` (same
folders and file names), written back compactly: `meta` and `round_records` as published; each player's
conversation (`prompt`) emptied. `player_data` (model, id, records) is kept in the three Pirate Game files, Battle
Royale `_h0` and El Farol `_savept1_0`, its records taken from the round records in the order the file's own
records follow (checked against the players' records that were read); the other files leave it out, as a reader
of their leaderboard never needs it (our rules then keep their rounds as recorded). The expected scores below are
computed here, independently of the importer, the way their `compute_score` does."""

from __future__ import annotations

import json
from pathlib import Path
from statistics import mean

import pytest

from engine import store
from engine.games.settings import setting_of
from engine.papers.gamabench.importer import import_dir, model_name, parse_name
from engine.papers.gamabench.scores import leaderboard
from engine.study.rescore import rescore
from tests.page_run import run_page

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parent / "data" / "gamabench"


def _load(relative: str) -> dict:
    return json.loads((DATA / relative).read_text())


def their_pirate(data: dict) -> float:
    """games/pirate_game.py: (200 - mean L1)/200·50 + accuracy·50 (200 whatever G); L1 of each share ·100/G from
    the 100-gold plan that gives 1 to every even offset; a vote is right when accepting >= 2 golds, or 1 gold at an
    even offset, or rejecting 0; the accuracy divides by every pirate but the proposer."""
    gold = data["meta"].get("gold", 100)
    distances, right, asked = [], 0, 0
    for r in data["round_records"]:
        plan = r["gold_distribution"]
        fair = [1 if i and i % 2 == 0 else 0 for i in range(len(plan))]
        fair[0] = 100 - sum(fair)
        distances.append(sum(abs(g / gold * 100 - f) for g, f in zip(plan, fair, strict=True)))
        for i, vote in enumerate(r["responses"][1:], start=1):
            g = plan[i]
            right += (g >= 2 and vote == "accept") or (g == 1 and i % 2 == 0 and vote == "accept") \
                or (g == 0 and vote == "reject")
        asked += len(plan) - 1
    return (200 - mean(distances)) / 200 * 50 + right / asked * 50


def their_battle(data: dict) -> float:
    """A shot is right when it names the living opponent with the highest hit rate."""
    right = []
    for r in data["round_records"]:
        shooter = f"player_{r['player_shooting']}"
        best = max(rate for pid, rate in r["initial_players"] if pid != shooter)
        targets = {pid for pid, rate in r["initial_players"] if pid != shooter and rate == best}
        right.append(f"player_{r['shot_player']}" in targets)
    return sum(right) / len(right) * 100


def their_bar(data: dict) -> float:
    ratio = data["meta"]["ratio"]
    r = max(ratio, 1 - ratio)
    return (r - mean(abs(x["go_ratio"] - ratio) for x in data["round_records"])) / r * 100


def their_auction(data: dict) -> float:
    return mean(max(0, (v - b) / max(v, 1)) for x in data["round_records"]
                for b, v in zip(x["responses"], x["valuations"], strict=True)) * 100


def their_guessing_above_one(data: dict) -> float:
    lo, hi = data["meta"]["min"], data["meta"]["max"]
    assert data["meta"]["ratio"] > 1
    return mean(x["mean"] - lo for x in data["round_records"]) / (hi - lo) * 100


# file -> (the authors' score, model, prompt version, strategy, temperature, our preset, setting)
EXPECTED = {
    "pirate_game/gpt-4-0125-pirate_game_v1_1.json": (their_pirate, "gpt-4-0125-preview", "v1", "vanilla", 1.0,
                                                     "default", "vanilla"),
    "pirate_game/gpt-4o_pirate_game_v1_g0.json": (their_pirate, "gpt-4o", "v1", "vanilla", 1.0, "default", "custom"),
    "pirate_game/llama-3.1-8b_pirate_game_v1_1.json": (their_pirate, "llama-3.1-8b", "v1", "vanilla", 1.0, "default",
                                                       "vanilla"),
    "battle_royale/battle_royale_cot2.json": (their_battle, "gpt-3.5-turbo-0125", "v1", "cot", 1.0, "default",
                                              "vanilla"),
    "battle_royale/gemini-1.5-pro_battle_royale_v1_h0.json": (their_battle, "gemini-1.5-pro", "v1", "vanilla", 1.0,
                                                              "default", "custom"),
    "bar_game/explicit/bar_game_explicit_v1_savept1_0.json": (their_bar, "gpt-3.5-turbo-0125", "v1", "vanilla", 1.0,
                                                              "explicit", "custom"),
    "sealed_bid_auction/second_price/sealed_bid_auction_vr0.json": (their_auction, "gpt-3.5-turbo-0125", "v1",
                                                                    "vanilla", 1.0, "second_price", "custom"),
    "guessing_game/gpt-4o_guessing_game_v1_r10.json": (their_guessing_above_one, "gpt-4o", "v1", "vanilla", 1.0,
                                                       "default", "custom"),
}


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    db = tmp_path_factory.mktemp("real") / "r.duckdb"
    summary = import_dir(DATA, db)
    return db, summary


def test_every_real_file_imports_with_the_authors_score_model_and_condition(imported):
    db, summary = imported
    assert summary.splitlines()[0].endswith("(0 already there, 0 unreadable)")
    rows = store.query(db, """
        SELECT m.outcome->>'$.source_file' AS f, m.preset, m.params, m.game, s.agent, s.prompt_version, s.strategy,
               s.temperature, x.value AS score
        FROM matches m JOIN seats s ON s.match_id = m.match_id AND s.seat = 0
        JOIN metrics x ON x.match_id = m.match_id AND x.seat IS NULL AND x.name = 'gamabench_score'""")
    got = {r["f"]: r for r in rows.to_dict("records")}
    assert set(got) == set(EXPECTED)
    for f, (formula, model, version, strategy, temperature, preset, setting) in EXPECTED.items():
        row = got[f]
        assert row["score"] == pytest.approx(formula(_load(f)), abs=1e-9), f
        assert (row["agent"], row["prompt_version"], row["strategy"], row["temperature"], row["preset"]) == \
            (model, version, strategy, temperature, preset), f
        custom = setting_of(row["game"], json.loads(row["params"]))
        assert ("custom" if custom else "vanilla") == setting, (f, custom)


def test_hand_checked_scores(imported):
    """A few figures worked out by hand from the files, so the formulas above cannot drift together."""
    db, _ = imported
    scores = store.query(db, """SELECT m.outcome->>'$.source_file' AS f, x.value FROM matches m JOIN metrics x
        ON x.match_id = m.match_id AND x.seat IS NULL AND x.name = 'gamabench_score'""")
    score = dict(zip(scores["f"], scores["value"], strict=True))
    # plan 98,0,0,1,0,0,0,0,0,1: L1 8 -> 48; 5 of 9 votes right -> 27.78
    assert score["pirate_game/gpt-4-0125-pirate_game_v1_1.json"] == pytest.approx(48 + 50 * 5 / 9)
    # 3 right shots of 17: 9 by player 3, 8 by player 7, 7 by player 6
    assert score["battle_royale/battle_royale_cot2.json"] == pytest.approx(300 / 17)
    # go ratios 0.9, 0.1 against 60%: (0.6 - 0.4)/0.6
    assert score["bar_game/explicit/bar_game_explicit_v1_savept1_0.json"] == pytest.approx(100 / 3)
    # 4 golds: each share x25; L1 98, 96, 98 from the 100-gold plan, divided by their code's 200 (not 2G = 8:
    # -520.8); 7 + 7 + 4 of 9 + 8 + 7 votes right
    assert score["pirate_game/gpt-4o_pirate_game_v1_g0.json"] == pytest.approx((200 - 292 / 3) / 200 * 50
                                                                             + 18 / 24 * 50)


def test_rescore_keeps_the_authors_scores_of_imported_records(imported, tmp_path):
    db, _ = imported
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(Path(db).read_bytes())
    before = leaderboard(copy).set_index(["model", "strategy", "setting"]).sort_index()
    with store.connect(copy) as con:
        con.execute("DELETE FROM metrics")
    assert rescore(copy).failed == []
    after = leaderboard(copy).set_index(["model", "strategy", "setting"]).sort_index()
    assert after.drop(columns="matches").equals(before.drop(columns="matches"))


def test_the_names_the_authors_repository_uses():
    assert parse_name("battle_royale_cot2.json") | {} == {
        "gama_game": "battle_royale", "model": "gpt-3.5-turbo-0125", "prompt_version": None, "temperature": 1.0,
        "strategy": "cot", "repeat": 0, "variant": "cot2", "own_setting": "cot2"}
    assert parse_name("sealed_bid_auction_t3.json")["temperature"] == 0.6
    assert parse_name("gpt-4-0125-preview-pirate_game_v1_3.json")["model"] == "gpt-4-0125-preview"
    assert parse_name("gpt-3.5_1106_sealed_bid_auction_v1_5.json")["model"] == "gpt-3.5-1106"
    assert parse_name("diner_dilemma_v1_savept2_0.json")["variant"] == "savept2_0"
    assert parse_name("llama-3.1-405b_bar_game_explicit_v1_1.json")["gama_game"] == "bar_game_explicit"
    assert parse_name("gemini-1.5-pro_diner_dilemma_v5.json")["prompt_version"] == "v5"


def test_the_model_is_the_names_unless_the_name_abbreviates_what_the_file_records():
    def players(model: str) -> dict:
        return {"meta": {}, "player_data": [{"model": model}] * 3}

    assert model_name("gpt-3.5-0613", players("gpt-3.5-turbo-0613")) == "gpt-3.5-turbo-0613"
    assert model_name("gpt-4-0125", players("gpt-4-0125-preview")) == "gpt-4-0125-preview"
    assert model_name("gpt-4o", players("gpt-4o-2024-08-06")) == "gpt-4o"  # a date is no reason to rename
    assert model_name("llama-3.1-405b", players("meta-llama/Meta-Llama-3.1-405B-Instruct")) == "llama-3.1-405b"
    assert model_name("gpt-3.5-turbo-0125", players("gpt-3.5-turbo")) == "gpt-3.5-turbo-0125"  # no prefix
    assert model_name("gpt-3.5-turbo-0125", {"meta": {"models": "gpt-4o"}}) == "gpt-4o"
    assert model_name("qwen2-72b", {"meta": {}}) == "qwen2-72b"


def test_files_that_are_not_records_are_each_reported_with_a_reason(tmp_path):
    folder = tmp_path / "raw" / "sealed_bid_auction" / "second_price"
    folder.mkdir(parents=True)
    src = DATA / "sealed_bid_auction" / "second_price" / "sealed_bid_auction_vr0.json"
    (folder / src.name).write_bytes(src.read_bytes())
    (folder / "notes.json").write_text("{}")
    (folder / "sealed_bid_auction_v1_2.json").write_text('{"meta": {"player_num": 10}, "round_records": [{}]}')
    (folder / "sealed_bid_auction_v1_3.json").write_text("[1, 2")
    summary = import_dir(tmp_path / "raw", tmp_path / "r.duckdb")
    lines = summary.splitlines()
    assert "imported 1 " in lines[0] and "3 unreadable" in lines[0]
    assert any("notes.json: not a GAMA-Bench record name" in x for x in lines)
    assert any("sealed_bid_auction_v1_2.json: meta has no 'valuation_min'" in x for x in lines)
    assert any("sealed_bid_auction_v1_3.json: not JSON" in x for x in lines)


def test_the_leaderboard_page_shows_the_imported_models_marked_published(imported, monkeypatch):
    db, _ = imported
    at = run_page("leaderboard", db, monkeypatch)
    assert not at.exception
    gama = next(df.value for df in at.dataframe if "pirate_game" in df.value.columns)
    assert set(gama["source"]) == {"published"}
    assert {expected[1] for expected in EXPECTED.values()} == set(gama["model"])
    shown = [str(v) for df in at.dataframe for v in df.value.astype(str).to_numpy().ravel()]
    shown += [c.value for c in at.caption] + [m.value for m in at.markdown]
    assert not [s for s in shown if s in ("None", "nan", "NaN", "<NA>") or "None " in s or " nan" in s]


def test_a_suffix_of_its_own_is_never_the_papers_vanilla_setting(tmp_path):
    """Their table counts the numbered runs (`_1`.._5) and the condition series only: the same record filed as
    `_s1` (a setting of the authors' own, with the paper's parameters) is a study of its own, as `_2` it is
    'vanilla'."""
    raw = (DATA / "battle_royale" / "battle_royale_cot2.json").read_bytes()
    folder = tmp_path / "battle_royale"
    folder.mkdir()
    (folder / "battle_royale_v1_2.json").write_bytes(raw)
    (folder / "battle_royale_v1_s1.json").write_bytes(raw)
    db = tmp_path / "r.duckdb"
    import_dir(tmp_path, db)
    board = leaderboard(db).set_index("setting")
    assert list(board.index) == ["vanilla", "study _s1"]
    assert board.loc["study _s1", "battle_royale"] == board.loc["vanilla", "battle_royale"] == pytest.approx(300 / 17)
    assert set(board["strategy"]) == {"vanilla"}
