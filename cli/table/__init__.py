"""The terminal table: the full-screen game of ``p2p10 play`` and ``p2p10 host``/``join``, and
the viewer of ``p2p10 replay``, drawn with prompt_toolkit from the seat model (:mod:`cli.seat`,
which the browser draws too) and its :class:`~p2p10.engine.GameState`: the other seats with
their phase, score, cards in hand and melds; the draw and discard piles; one seat's hand; and
the move log in plain words.

The screen holds no rules: whether a move is allowed, and why not, is the engine's answer
(:meth:`~p2p10.engine.GameState.why_not`, or the move tried on the seat's view); what a hand is
near to, the lay-downs and the hits are :mod:`p2p10.moves`'; the words are
:mod:`p2p10.narrate`'s. A seat is all the play screen knows of the table
(:class:`~protocol.local.SeatScreen`): the seat plays the table; the screen shows it and passes
the user's moves on.

Every word a player reads goes through :mod:`p2p10.i18n`, and every width is measured in
terminal columns with :mod:`.drawing` (``columns``, ``pad``, ``wrap``, ``shorten``), so that a
longer language or a wide name still fits: prose wraps, titles and questions are shortened at a
word (never through one), the keys at the bottom flow onto more lines.

Modules, by concept: :mod:`.drawing` (styled lines, widths), :mod:`.pane` (the table pane),
:mod:`.panels` (the side screens), :mod:`.board` (the layout), and the screens: :mod:`.start`,
:mod:`.play`, :mod:`.lan`, :mod:`.replay_view`, :mod:`.watch_view`. What a key does, the
questions a move asks and the words of the title are the model's (:mod:`cli.seat`); where the
model gives a short form, the terminal takes the first that fits. Each screen runs without a
terminal too (prompt_toolkit's pipe input and a dummy output): the tests play whole games by
keystrokes.
"""
