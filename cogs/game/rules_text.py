"""Quick rulings for /risk rules and the text of /risk help (translated through the catalogs)."""

from __future__ import annotations

RULE_TOPICS: dict[str, str] = {
    "mistakes": (
        "**The five rules most groups get wrong**\n"
        "1. Ties go to the defender. Not the attacker, not a re-roll.\n"
        "2. The fortify move is one move from one territory to one adjacent territory (unless this game allows "
        "connected moves).\n"
        "3. Card values escalate across the whole table: the third set of the game gives 8 even if it is your "
        "first.\n"
        "4. You draw at most one card per turn, however many territories you took.\n"
        "5. When capturing you must move in at least as many armies as the dice you rolled."
    ),
    "ties": "**Ties** go to the defender, always. Both sides' dice are sorted high to low and compared in pairs; "
            "the attacker must beat a die to win the pair.",
    "dice": "**Dice.** The attacker rolls 1 to 3 dice and must have more armies in the territory than dice rolled. "
            "The defender rolls 2 dice if it has 2 or more armies, else 1 (the bot always rolls the most for the "
            "defender). Every roll comes from the game's secret seed: /risk verify.",
    "cards": "**Cards.** Conquer at least one territory in a turn to draw one card at its end. A set is three of a "
             "kind, one of each, or any two plus a wild. Sets are worth 4, 6, 8, 10, 12, 15, then 5 more each, "
             "counted across all players. A traded card showing a territory you hold gives +2 armies there (at "
             "most 2 per turn). With 5 or more cards you must trade at the start of your turn.",
    "fortify": "**Fortify.** At the end of your turn you may make one move: armies from one territory to one "
               "adjacent territory of yours, leaving at least one behind. Some games allow moving along a chain "
               "of your territories (setting fortify: connected).",
    "capture": "**Capture.** When the last defender falls, move in at least as many armies as the dice of your "
               "last roll; one army always stays behind. You may keep attacking, also from the territory you "
               "just took.",
    "reinforcements": "**Reinforcements.** Territories divided by 3, rounded down, at least 3 (11 give 3, 14 give "
                      "4, 17 give 5), plus every continent you hold whole: Asia 7, North America 5, Europe 5, "
                      "Africa 3, South America 2, Australia 2. Place them all before attacking.",
    "elimination": "**Elimination.** Take a player's last territory and you take their cards. With 6 or more you "
                   "must trade at once, down to 4 or fewer, and place those armies before attacking again.",
    "twoplayer": "**Two players** play with a neutral army: 40 armies each and 40 neutral, the territories dealt "
                 "in three piles of 14. Each setup turn you place 2 of your armies and 1 neutral army. Neutral "
                 "never attacks and is never reinforced. Eliminate your opponent to win.",
    "missions": "**Secret missions** (mode missions). Each player gets a mission only they see (`/mission`, or the "
                "Mission button): conquer two named continents (sometimes plus one of your choice), hold 18 "
                "territories with 2 armies each or 24 territories, or destroy one player. Complete it and you win "
                "at once, in your own turn. If your target is eliminated by someone else, or surrenders, your "
                "mission becomes 24 territories. At the end every mission is shown.",
    "capitals": "**Capitals** (mode capitals). Before the first turn each player chooses a capital among their "
                "territories, in turn order. Hold every capital at the end of your turn, yours and all the "
                "others', and you win. Capitals are marked with a star on the map.",
    "teams": "**Teams** (2v2, 3v3, 2v2v2). Seats are dealt into teams in turn: seat 1 with seat 3, seat 2 with "
             "seat 4. Teammates cannot attack each other, may fortify into each other's territories, and see "
             "what each other sees under fog of war. A continent's bonus goes to a player who holds it alone. A "
             "team wins when every player of the other teams is out.",
    "fog": "**Fog of war** (fog on). You see your own territories, your teammates', and every territory next to "
           "them: owner and armies. The rest is grey. Your moves are answered only to you, with your own map; the "
           "channel learns only that turns start and end, trades, eliminations, surrenders and the end. When "
           "the game ends the fog lifts and everything is shown.",
    "undo": "**Undo.** Until your first attack you may take back the armies you placed this turn (the Undo "
            "button, or `/undo`): they go back to be placed again. Armies from a card bonus stay.",
}

HELP_TEXT = (
    "**Risk on Discord**\n"
    "Start: `/risk new` opens a lobby, players `/risk join`, the host adds AIs with `/risk addbot` and starts "
    "with `/risk start`.\n"
    "Play with the buttons on the turn message, or type: `/place`, `/attack`, `/blitz`, `/move`, `/fortify`, "
    "`/trade`, `/end`, and `/undo` to take back this turn's placements. See the board with `/map`, your hand with "
    "`/cards`, your secret mission with `/mission`, any battle's exact odds with `/odds`.\n"
    "More: `/risk status`, `/risk log`, `/risk rules`, `/risk surrender`, and after the game `/risk export` and "
    "`/risk verify` to check every die.\n"
    "Records of this server: `/risk stats`, `/risk leaderboard` and `/risk history`."
)
