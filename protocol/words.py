"""The 256 words of a private table's code (:mod:`protocol.private`).

A code is read aloud across a room and typed on another machine, so every word is a short,
common, concrete English word (3 to 7 letters, lowercase ASCII) that is spelled the way it
sounds. The list was chosen so that:

- no two words are one typo apart (an insertion, deletion or substitution): a slip gives an
  unknown word, which :func:`protocol.private.parse_code` reports, not another valid code;
- no word is the beginning of another, so a word can be completed from its first letters;
- there are no homophones (no *bear*/*bare*, *flour*/*flower*, *pear*/*pair*), no silent or
  doubtful letters (no *knight*, *island*, *yacht*, *cello*), no British/American spelling
  pairs (no *colour*, *yoghurt*, *donut*), no close rhymes that a noisy room blurs (no
  *butter*/*button*, *summer*/*summit*), and nothing rude or with a rude second meaning.

The order is alphabetical and means nothing: a word's index is not part of the protocol, only
its spelling is (the code is the SPAKE2 password as text). Changing the list only changes which
codes ``new_code`` can make; a host and a guest with different lists still agree on any code
that both can parse.
"""

from __future__ import annotations

WORDS: tuple[str, ...] = (
    "acorn", "amber", "anchor", "apple", "apron", "arrow", "attic", "aurora", "bacon", "badger",
    "bagel", "bamboo", "banana", "banjo", "barrel", "basil", "basket", "beetle", "bench", "bingo",
    "birch", "bottle", "branch", "breeze", "bridge", "bronze", "brook", "bucket", "bunny", "button",
    "cabin", "cactus", "camel", "canal", "candle", "canoe", "canyon", "carpet", "cave", "cedar",
    "chair", "cheese", "circus", "cliff", "clock", "cloud", "clover", "coffee", "comet", "cookie",
    "copper", "crater", "crown", "daisy", "delta", "denim", "desk", "disco", "domino", "drum", "dune",
    "eagle", "echo", "engine", "falcon", "fern", "finch", "flag", "flute", "forest", "fork", "fossil",
    "fox", "frog", "frost", "galaxy", "garden", "garlic", "gecko", "ginger", "globe", "golden", "golf",
    "goose", "grape", "guitar", "hammer", "harp", "hawk", "hedge", "helmet", "heron", "hill", "hippo",
    "hockey", "honey", "hook", "igloo", "indigo", "ivory", "ivy", "jacket", "jade", "jazz", "juice",
    "jungle", "kayak", "kettle", "kite", "kitten", "kiwi", "koala", "lagoon", "lake", "lamp", "lava",
    "leaf", "lemon", "lemur", "lentil", "lime", "linen", "lizard", "lotus", "magnet", "magpie",
    "mango", "maple", "marble", "marsh", "meadow", "melody", "melon", "meteor", "mint", "mirror",
    "moon", "moss", "nebula", "needle", "novel", "nutmeg", "oak", "oasis", "ocean", "olive", "onion",
    "opal", "opera", "orange", "orbit", "orchid", "otter", "owl", "oyster", "paddle", "palace",
    "panda", "parrot", "pasta", "peach", "peanut", "pebble", "pencil", "pepper", "piano", "pickle",
    "pine", "pizza", "planet", "plate", "poem", "pond", "poppy", "potato", "puffin", "purple",
    "python", "rabbit", "raisin", "raven", "rhino", "ribbon", "rice", "riddle", "river", "robin",
    "rocket", "rope", "ruby", "ruler", "salad", "sand", "scarf", "shadow", "shark", "shelf", "shovel",
    "silver", "snail", "snow", "sock", "sofa", "soup", "spider", "spoon", "spring", "squid", "star",
    "stone", "storm", "subway", "sugar", "summer", "sunset", "swan", "table", "taco", "taxi", "teapot",
    "temple", "tennis", "tent", "ticket", "tiger", "toast", "tofu", "tomato", "topaz", "tower",
    "train", "trophy", "trout", "truck", "tulip", "tuna", "tundra", "tunnel", "turnip", "turtle",
    "valley", "velvet", "violin", "waffle", "wagon", "wallet", "walnut", "walrus", "wasp", "wheat",
    "willow", "window", "winter", "yellow", "zebra", "zipper",
)
