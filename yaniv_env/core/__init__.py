"""The game-neutral core that Yaniv and Pis Yedili share.

Nothing here knows either game: seeding, and (as the games move onto it) the rules base
class, the observation piece layout, the AEC and single-agent bases and the game
description. The modules that need PettingZoo or Gymnasium are imported only by the
environment layers, so ``import yaniv_env.core`` stays as light as NumPy.
"""
