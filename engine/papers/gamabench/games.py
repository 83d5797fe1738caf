"""γ-Bench's eight games, which its suite and scorers share."""

GAMES = ("guessing_game", "bar_game", "divide_dollar", "public_goods", "diner_dilemma", "sealed_bid_auction",
         "battle_royale", "pirate_game")
