"""LEGOBench leaderboard-generation tasks (RPG, RPLM, LGPLM); the LEGOBench paper (Singh et al.,
arXiv 2401.06233); ``lingo-iitgn/LEGOBench``.

``rplm_scoring`` scores released or new RPLM answer workbooks against ``rplm.xlsx``.
"""
