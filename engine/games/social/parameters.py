"""The parameters Chameleon and Undercover share: which word setting, who holds the special role, who
speaks first, the probes, scripted clues, the seats under test, and how MAgIC's answers are read."""

from __future__ import annotations

from engine.games.base import Param

SOCIAL_PARAMS: dict[str, Param] = {
    "setting": Param(-1, "index of the word setting; -1 picks setting (seed mod number of settings)", lo=-1),
    "role_seat": Param(-1, "seat of the special role; -1 = as the setting names it, else drawn by seed", lo=-1),
    "first_speaker": Param(0, "seat that speaks first each round; -1 = drawn by seed", lo=-1),
    "probes": Param(True, "ask every seat a role and a belief probe after each clue round", kind=bool),
    "fixed_clues": Param(False, "seats other than challenger_seat give the setting's scripted clues", kind=bool),
    "challenger_seat": Param(-1, "the seat under test whose clues are never scripted (-1: none)", lo=-1),
    "tested_role": Param("", "seats under test (set by a {challenger, others} lineup): 'special' = the special "
                         "seat, 'common' = every other seat, '' = as challenger_seat / the lineup says",
                         kind=str, choices=("", "special", "common")),
    "max_chars": Param(400, "a clue or speech is cut to this many characters", lo=20, hi=4000),
    # MAgIC's rules only (Chameleon; Undercover with rules 'magic'); LLMArena's and Who-is-Spy's keep 'last', 'yes_no'
    "vote_reading": Param("authors", "how a vote is read: 'authors' = the first player in seat order the answer "
                          "names anywhere, own name included (MAgIC's _text2vote); 'last' = the JSON field, else "
                          "the last player named", kind=str, choices=("authors", "last")),
    "role_probe": Param("authors", "the role probe: 'authors' = the statement 'I am Player N, my role is ...', right "
                        "only with both the seat's name and role (MAgIC's parse_consistency); 'yes_no' = are you "
                        "the special role, yes or no", kind=str, choices=("authors", "yes_no")),
}
