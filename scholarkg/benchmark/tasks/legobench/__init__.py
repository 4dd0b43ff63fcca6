"""LEGOBench leaderboard-generation tasks (RPG, RPLM, LGPLM); see reference ``legobench.md``.

``rplm_scoring`` scores released or new RPLM answer workbooks against ``rplm.xlsx``.
"""
